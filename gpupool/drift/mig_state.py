"""A node's MIG state: the strategy it runs, its reconfiguration, and profiles it should not offer.

The MIG Manager writes ``nvidia.com/mig.config.state`` (``pending``, ``rebooting``, ``success``,
``failed``: NVIDIA/mig-parted ``deployments/container/reconfigure-mig.sh``); GFD and the device
plugin write ``nvidia.com/mig.strategy`` (GFD ``internal/lm/mig-strategy.go``) and, under
strategy mixed, ``nvidia.com/mig-<profile>.count`` per profile.
"""

from __future__ import annotations

import re

from gpupool import facts
from gpupool.cluster import ObservedNode
from gpupool.drift.expectation import Expected
from gpupool.drift.items import NodeFindings
from gpupool.facts.names import MIG_CONFIG_STATE_LABEL, MIG_RESOURCE_PREFIX
from gpupool.model import Pool, Stack

#: The MIG strategy GFD and the device plugin run with (GFD ``internal/lm/mig-strategy.go``).
MIG_STRATEGY_LABEL = "nvidia.com/mig.strategy"
#: GFD's per-profile MIG labels under strategy mixed: ``nvidia.com/mig-<profile>.count``.
_MIG_COUNT_LABEL = re.compile(r"^nvidia\.com/mig-(?P<profile>.+)\.count$")
#: mig.config.state values of a reconfiguration still under way (mig-parted
#: ``deployments/container/reconfigure-mig.sh``).
MIG_STATES_IN_PROGRESS = ("pending", "rebooting")


def is_mig_count(key: str) -> bool:
    """Return whether ``key`` is GFD's count label of one MIG profile (strategy mixed)."""
    return _MIG_COUNT_LABEL.match(key) is not None


def state(stack: Stack, pool: Pool, want: Expected, node: ObservedNode, item: NodeFindings) -> bool:
    """Report the MIG strategy and reconfiguration state; True when GPU checks should stop.

    A node on the other strategy or in the middle of a reconfiguration advertises what it had
    before: naming that cause replaces the product, memory, count and allocatable findings it
    implies. The reconfiguration state matters on every pool the MIG Manager serves (a pool
    leaving MIG is reconfigured too); the strategy only on MIG pools.
    """
    partitioned = pool.sharing.kind.partitioned
    if not partitioned and not facts.of(stack).mig_manager:
        return False
    strategy = node.labels.get(MIG_STRATEGY_LABEL)
    if partitioned and want.mig_strategy and strategy and strategy != want.mig_strategy:
        item(
            want.mig_strategy,
            strategy,
            f"node runs MIG strategy {strategy}, the stack needs {want.mig_strategy} "
            f"({MIG_STRATEGY_LABEL}; set by the GPU Operator's mig.strategy)",
        )
        return True
    got = node.labels.get(MIG_CONFIG_STATE_LABEL)
    if got in MIG_STATES_IN_PROGRESS:
        item(
            "success",
            got,
            f"MIG reconfiguration is still under way on this node "
            f"(mig.config.state={got}); GPU labels and allocatable follow when it ends",
        )
        return True
    if got == "failed":
        item("success", got, "MIG reconfiguration failed on this node (mig.config.state=failed)")
    return False


def extra_profiles(want: Expected, pool: Pool, node: ObservedNode, item: NodeFindings) -> None:
    """Report MIG profiles (strategy mixed) the node offers that the pool does not declare.

    Only where the node may offer them by profile: pools without MIG, and MIG pools under
    strategy mixed.
    """
    partitioned = pool.sharing.kind.partitioned
    if partitioned and want.mig_strategy != facts.MIG_MIXED:
        return
    offered: dict[str, str] = {}
    for key, value in node.labels.items():
        m = _MIG_COUNT_LABEL.match(key)
        if m and value not in ("", "0"):
            offered[MIG_RESOURCE_PREFIX + m["profile"]] = value
    for res, value in node.allocatable.items():
        if res.startswith(MIG_RESOURCE_PREFIX) and value not in ("", "0"):
            offered.setdefault(res, value)
    why = "which the pool no longer declares" if partitioned else "and the pool declares no MIG"
    for res in sorted(set(offered) - set(want.allocatable)):
        profile = res.removeprefix(MIG_RESOURCE_PREFIX)
        item(None, {res: offered[res]}, f"node offers {offered[res]} x {profile}, {why}")
