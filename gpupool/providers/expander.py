"""The cluster-autoscaler priority expander: prefer a split pool's spot group to its on-demand one.

A spot pool with ``onDemandBase`` or ``fallbackToOnDemand`` becomes two node groups
(``gpupool.facts.groups.capacity_groups``). The cluster autoscaler picks which group to grow;
with the priority expander (``--expander=priority``) it reads the ConfigMap
``cluster-autoscaler-priority-expander`` in ``kube-system`` and grows the group whose name
matches the highest-priority regular expression.
gpupool writes that ConfigMap: every spot group gets priority 50, everything else 10 (the
catch-all keeps groups gpupool does not know about eligible, as without the ConfigMap).

The expander matches the autoscaler's node-group names, which each cloud derives from the node
pool's name; the cloud module passes the regular expression that matches its spot group. The
ConfigMap is cluster-wide: one stack per cluster should own it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from gpupool.graph import Resource
from gpupool.model import Stack
from gpupool.providers.common import K8S_PROVIDER, tags

ADDRESS = "cluster.autoscaler_priority_expander"
NAME = "cluster-autoscaler-priority-expander"
NAMESPACE = "kube-system"
SPOT_PRIORITY = 50
DEFAULT_PRIORITY = 10


def regex_literal(text: str) -> str:
    """Return a regular expression (RE2 and Python) matching ``text`` literally.

    Unlike ``re.escape`` it leaves hyphens alone, so patterns of pool names stay readable.
    """
    return re.sub(r"([\\.^$*+?()\[\]{}|])", r"\\\1", text)


def priorities(spot_patterns: Sequence[str]) -> str:
    """Return the ``priorities`` document (YAML; each pattern a double-quoted scalar)."""
    lines = [f"{DEFAULT_PRIORITY}:", '  - ".*"', f"{SPOT_PRIORITY}:"]
    lines += [f"  - {json.dumps(p)}" for p in sorted(set(spot_patterns))]
    return "\n".join(lines) + "\n"


def configmap(
    stack: Stack, spot_patterns: Sequence[str], depends_on: Sequence[str]
) -> Resource | None:
    """Return the priority-expander ConfigMap, or None when no pool is split.

    Args:
        stack: the stack (its labels go on the object).
        spot_patterns: one regular expression per spot group of a split pool.
        depends_on: the node groups the patterns name (they exist first).

    """
    if not spot_patterns:
        return None
    metadata = {
        "name": NAME,
        "namespace": NAMESPACE,
        "labels": {
            **tags(stack),
            "app.kubernetes.io/managed-by": "gpupool",
            "gpupool.io/stack": stack.name,
        },
    }
    data = {"priorities": priorities(spot_patterns)}
    return Resource(
        address=ADDRESS,
        type="kubernetes:core/v1:ConfigMap",
        name=f"{NAMESPACE}/{NAME}",
        inputs={"metadata": metadata, "data": data},
        depends_on=tuple(dict.fromkeys(depends_on)),
        provider=K8S_PROVIDER,
        replace_on=("metadata.name", "metadata.namespace"),
        owner="cluster",
        manifest={"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": data},
    )
