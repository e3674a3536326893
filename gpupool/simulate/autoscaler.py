"""The node autoscaler's timings, and spot interruptions.

This module owns the figures the simulated autoscaler runs on, each with its source:

* **scale-up**: a node asked for at time t takes pods from ``t + SCALE_UP_SECONDS``. The
  cluster-autoscaler FAQ ("What are the Service Level Objectives for Cluster Autoscaler?",
  kubernetes/autoscaler ``cluster-autoscaler/FAQ.md``) gives under 30 s for the autoscaler to act
  and, on GCE, 3 to 4 minutes of node provisioning, "usually about 5 minutes" in all. No cloud
  publishes a figure for its GPU node pools, so every cloud that provisions nodes takes that
  5 minutes (``--scale-up-seconds`` sets another); existing nodes (``cloud: kubernetes``) are
  never added or removed;
* **scale-down**: an empty node above its group's minimum goes after
  ``SCALE_DOWN_UNNEEDED_SECONDS``, cluster-autoscaler's ``--scale-down-unneeded-time`` default
  (10 minutes; its ``--scale-down-delay-after-add`` default is also 10 minutes, so a new node
  stays at least that long). Nodes that are busy but underused are not drained;
* **spot capacity running short**: with a shortage rate (``--spot-shortage``, 0 by default),
  each spot node asked for is, at that seeded chance, one the cloud cannot fill. The autoscaler
  learns it when the node has not come after ``MAX_NODE_PROVISION_SECONDS`` (cluster-autoscaler's
  ``--max-node-provision-time``, 15 minutes by default; AKS documents the same default in its
  autoscaler profile), and backs the group off: ``INITIAL_BACKOFF_SECONDS`` after a first
  failure, doubling up to ``MAX_BACKOFF_SECONDS`` while failures follow within
  ``BACKOFF_RESET_SECONDS`` (``--initial-node-group-backoff-duration`` 5m,
  ``--max-node-group-backoff-duration`` 30m, ``--node-group-backoff-reset-timeout`` 3h, the
  defaults in cluster-autoscaler's ``main.go``). A backed-off group is skipped, so a pool with
  ``fallbackToOnDemand`` grows its on-demand group instead; a failed request costs nothing;
* **spot interruptions**: each spot node is interrupted at a seeded exponential rate
  (``--spot-interruptions-per-hour`` per node, 0 by default); its pods get the pool's
  ``interruption.drainSeconds`` (else the cloud's notice, ``clouds.json``
  ``spot_notice_seconds``) and are resubmitted whole; the node goes when the notice ends.
"""

from __future__ import annotations

import math

from gpupool import catalog
from gpupool.simulate.cluster import GroupModel, PoolModel
from gpupool.simulate.demand import Demand

SCALE_UP_SECONDS = 300.0
SCALE_DOWN_UNNEEDED_SECONDS = 600.0
MAX_NODE_PROVISION_SECONDS = 900.0
INITIAL_BACKOFF_SECONDS = 300.0
MAX_BACKOFF_SECONDS = 1800.0
BACKOFF_RESET_SECONDS = 10800.0
DEFAULT_NOTICE_SECONDS = 120.0  # when the catalog states no notice for the cloud


def notice_seconds(cloud: str) -> float:
    """Seconds between a spot interruption notice and the node's stop on ``cloud``."""
    try:
        notice = catalog.cloud(cloud).spot_notice_seconds
    except LookupError:  # a cloud with no spot facts
        notice = None
    return float(notice) if notice else DEFAULT_NOTICE_SECONDS


def nodes_for(pm: PoolModel, d: Demand, pods: int) -> float:
    """Empty nodes of ``pm`` that ``pods`` pods with request ``d`` take (a fraction of one)."""
    parts = []
    if d.gpus > 0 and pm.gpu_equivalents_per_node > 0:
        parts.append(pods * d.gpus / pm.gpu_equivalents_per_node)
    if d.cpu > 0 and math.isfinite(pm.cpu):
        parts.append(pods * d.cpu / pm.cpu)
    if d.memory_gib > 0 and math.isfinite(pm.memory_gib):
        parts.append(pods * d.memory_gib / pm.memory_gib)
    return max(parts, default=0.0)


def growth_order(pm: PoolModel) -> tuple[GroupModel, ...]:
    """Return the groups in the order the autoscaler grows them: spot first, then on-demand.

    gpupool's cloud modules tell the autoscaler to prefer a split pool's spot group
    (``providers/expander.py``); its on-demand group grows past its base only with fallback.
    """
    return tuple(sorted(pm.groups, key=lambda g: not g.spot))


def backoff_seconds(previous: float | None, since_failure: float | None) -> float:
    """How long a node group is skipped after a failed scale-up.

    ``previous``: the backoff the group got at its last failure (None: never failed);
    ``since_failure``: seconds since that failure. The first failure, or one after a quiet
    ``BACKOFF_RESET_SECONDS``, backs off ``INITIAL_BACKOFF_SECONDS``; each next one doubles it,
    up to ``MAX_BACKOFF_SECONDS``.
    """
    if previous is None or since_failure is None or since_failure >= BACKOFF_RESET_SECONDS:
        return INITIAL_BACKOFF_SECONDS
    return min(MAX_BACKOFF_SECONDS, previous * 2)
