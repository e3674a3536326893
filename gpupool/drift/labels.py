"""A node's labels and allocatable resources against what its pool expects of them.

Three kinds of label: those a node must carry with exactly one value (gpupool's own and GPU
Feature Discovery's), GFD's that may be absent (``nvidia.com/gpu.sharing-strategy`` exists from
GFD v0.15.0 on; older GFDs write only ``gpu.replicas``, and cannot run MPS, which needs v0.15.0;
where the cloud shares GPUs GFD may not run at all), and the cloud's own sharing labels (GKE's:
``gpupool.clouds.gcp``), of which some must be absent. Allocatable is each advertised resource
times the GPUs per node.
"""

from __future__ import annotations

from gpupool.cluster import ObservedNode
from gpupool.drift.expectation import Expected
from gpupool.drift.items import NodeFindings
from gpupool.drift.mig_state import is_mig_count
from gpupool.facts.names import GFD_COUNT, GFD_SHARING_STRATEGY
from gpupool.model import Pool

#: Device-plugin sharing keys GFD before v0.15.0 (no ``gpu.sharing-strategy`` label) served.
_BEFORE_STRATEGY_LABEL = ("timeSlicing",)


def required(want: Expected, node: ObservedNode, item: NodeFindings, *, stop: bool) -> None:
    """Report labels that are missing or differ; with ``stop``, not the device counts."""
    for key, value in sorted(want.labels.items()):
        got = node.labels.get(key)
        if stop and (key == GFD_COUNT or is_mig_count(key)):
            continue  # follows the reconfiguration or the strategy, named already
        if got != value:
            shown = "missing" if got is None else repr(got)
            item({key: value}, {key: got}, f"label {key} is {shown}, expected {value!r}")


def optional(want: Expected, pool: Pool, node: ObservedNode, item: NodeFindings) -> None:
    """Report GFD labels that differ where present, and a sharing strategy no GFD leaves out."""
    kind = pool.sharing.kind
    for key, value in sorted(want.optional_labels.items()):
        got = node.labels.get(key)
        if got is not None and got != value:
            item({key: value}, {key: got}, f"label {key} is {got!r}, expected {value!r}")
        elif (
            got is None
            and key == GFD_SHARING_STRATEGY
            and kind.replicated
            and not want.cloud_labels
            and kind.device_plugin_key not in _BEFORE_STRATEGY_LABEL
        ):
            item(
                {key: value},
                {key: None},
                f"label {key} is missing: GFD older than v0.15.0 writes none, and its "
                f"device plugin cannot run {value}",
            )


def cloud(want: Expected, node: ObservedNode, item: NodeFindings) -> None:
    """Report the cloud's sharing labels: missing or different, or present where none may be."""
    for key, value in sorted(want.cloud_labels.items()):
        got = node.labels.get(key)
        if value is None:
            if got is not None:
                item(
                    {key: None},
                    {key: got},
                    f"label {key} is {got!r}: the cloud shares this node's GPUs, the pool "
                    "declares no sharing",
                )
        elif got != value:
            shown = "missing" if got is None else repr(got)
            item({key: value}, {key: got}, f"label {key} is {shown}, expected {value!r}")


def allocatable(want: Expected, node: ObservedNode, item: NodeFindings) -> None:
    """Report extended resources the node does not advertise as many times as expected."""
    for res, count in sorted(want.allocatable.items()):
        if node.allocatable.get(res) is None:
            item({res: count}, {res: None}, f"allocatable {res} is missing, expected {count}")
            continue
        got = node.allocatable_amount(res)
        if got != count:
            item(
                {res: count},
                {res: int(got) if got == int(got) else got},
                f"allocatable {res} is {_amount(got)}, expected {count}",
            )


def _amount(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)
