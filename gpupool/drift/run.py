"""Run every drift source that can run, and say why the others were skipped.

The engine source renders the stack's program and asks Pulumi for a refresh preview (never a
state-writing refresh); the cluster source reads nodes, the GPU scheduler's Deployments and the
services' ScaledObjects and HPAs, through the Kubernetes API; the node source
reads ``gpupool node inspect`` reports from a directory. A fault that a GPU health condition and a
node report both show on one node is one item (``gpupool.drift.conditions.fold``). Missing
access (no Pulumi CLI, no kubeconfig, no reports: a report folder that is missing, unreadable or
empty) skips a source unless it is in ``require``, which makes that an error. A skipped source
is "not checked", never "no drift".
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gpupool import assemble, cluster
from gpupool.drift import conditions, node_reports, scheduler, services
from gpupool.drift import nodes as node_state
from gpupool.drift.items import DriftItem, DriftReport, SourceStatus
from gpupool.errors import GpupoolError
from gpupool.model import Stack

ENGINE_SOURCE = "cloud"
CLUSTER_SOURCE = "cluster"
NODE_SOURCE = "node"
ALL_SOURCES = (ENGINE_SOURCE, CLUSTER_SOURCE, NODE_SOURCE)


class RequiredSourceError(GpupoolError):
    """A source named in ``--require`` could not be checked."""


@dataclass(frozen=True)
class DriftInputs:
    """Where each source gets its data; ``None`` means "use the real outside system"."""

    engine: Callable[[], Any] | None = None  # returns an EngineResult of a refresh preview
    cluster: Callable[[], Sequence[Any]] | None = None  # returns ObservedNodes
    # reads the named (namespace, name) Deployments, returning ObservedDeployments
    deployments: Callable[[Sequence[tuple[str, str]]], Sequence[Any]] | None = None
    node_reports_dir: Path | None = None
    # reads objects of a (group, version, plural, Kind) by (namespace, name): the services'
    # ScaledObjects and HPAs (``cluster.read_objects``'s signature without context and api)
    objects: Callable[[tuple[str, str, str, str], Sequence[tuple[str, str]]],
                      Sequence[Any]] | None = None


def engine_items(result: Any, cloud: str) -> list[DriftItem]:
    """Turn a refresh preview's changed steps into drift items."""
    out = []
    for step in result.steps:
        if not step.changed:
            continue
        source = "cluster" if step.type.startswith("kubernetes:") else "cloud"
        props = [p for p, _ in step.detailed_diff] or list(step.diffs)
        what = ", ".join(props) if props else "the resource"
        verb = "was deleted outside gpupool" if step.op == "delete" else f"changed: {what}"
        out.append(
            DriftItem(
                source,
                step.urn.split("::")[-1] if step.urn else step.name,
                step.type,
                step.op,
                f"{step.type} {step.name} {verb}",
            )
        )
    return out


def _unrendered(stack: Stack, items: list[DriftItem]) -> list[DriftItem]:
    """Return the engine's items, those gone from both the cluster and the program as notes.

    A resource the state still holds, that was deleted outside gpupool and that the stack no
    longer renders, is what the file asks for (the next ``up`` drops it from the state): under
    KAI a tenant's GPU ResourceQuota (``gpupool.facts.tenancy.quota_lines``) is one. It is said,
    never counted as drift.
    """
    if not any(i.observed == "delete" for i in items):
        return items
    rendered = {(r.type, r.name) for r in assemble.build(stack).resources}
    out = []
    for i in items:
        if i.observed == "delete" and (i.declared, i.address) not in rendered:
            i = replace(i, kind="note", summary=(
                f"{i.declared} {i.address} is gone from the cluster and gpupool no longer "
                "renders it: the next up drops it from the state"))
        out.append(i)
    return out


def _services(stack: Stack, inputs: DriftInputs) -> list[DriftItem]:
    """Return the drift of the services' ScaledObjects and HPAs, read as the nodes are."""
    read = inputs.objects
    if read is None and inputs.cluster is None:
        def read(kind: tuple[str, str, str, str],
                 names: Sequence[tuple[str, str]]) -> Sequence[Any]:
            return cluster.read_objects(kind, names, stack.provider.settings.context)
    if not stack.services or read is None:
        return []
    scaled = list(read(services.SCALED_OBJECT, services.wanted(stack)))
    hpas = list(read(services.HPA, services.hpa_names(stack, scaled)))
    return services.compare(stack, scaled, hpas)


def run(
    stack: Stack,
    stack_file: Path,
    inputs: DriftInputs,
    require: Collection[str] = (),
    engine_runner: Callable[[], Any] | None = None,
) -> DriftReport:
    """Run the drift sources for ``stack`` and return the combined report.

    Raises:
        RequiredSourceError: a source in ``require`` could not run.

    """
    items: list[DriftItem] = []
    statuses: list[SourceStatus] = []

    def skip(name: str, reason: str) -> None:
        if name in require:
            raise RequiredSourceError(
                f"drift source '{name}' is required but could not be checked: {reason}"
            )
        statuses.append(SourceStatus(name, False, reason))

    # Engine: cloud and Kubernetes resources as Pulumi sees them after a refresh.
    fetch_engine = inputs.engine or engine_runner
    if fetch_engine is None:
        skip(ENGINE_SOURCE, "no engine runner was given")
    else:
        try:
            items += _unrendered(stack, engine_items(fetch_engine(), stack.provider.cloud))
            statuses.append(SourceStatus(ENGINE_SOURCE, True))
        except GpupoolError as exc:
            skip(ENGINE_SOURCE, str(exc))

    # Cluster: what nodes advertise.
    observed: list[Any] = []
    try:
        if inputs.cluster is not None:
            observed = list(inputs.cluster())
        else:
            observed = cluster.read_gpu_nodes(stack.provider.settings.context)
        items += node_state.compare(stack, observed)
        # the GPU scheduler's Deployments: ready replicas against those declared
        # (read from the real cluster when the nodes are; a stand-in for nodes brings its own)
        wanted = scheduler.wanted(stack)
        read = inputs.deployments
        if read is None and inputs.cluster is None:
            def read(names: Sequence[tuple[str, str]]) -> Sequence[Any]:
                return cluster.read_deployments(names, stack.provider.settings.context)
        if wanted and read is not None:
            items += scheduler.compare(stack, read(wanted))
        items += _services(stack, inputs)
        statuses.append(SourceStatus(CLUSTER_SOURCE, True))
    except GpupoolError as exc:
        skip(CLUSTER_SOURCE, str(exc))

    # Node reports: NVML on the nodes.
    if inputs.node_reports_dir is None:
        skip(NODE_SOURCE, "no --node-reports directory was given")
    else:
        try:
            reps: list[Any] | None = node_reports.load_reports(inputs.node_reports_dir)
        except node_reports.NoReports as exc:
            skip(NODE_SOURCE, str(exc))
            reps = None
        if reps is not None:
            pool_by_node = {
                n.name: n.labels[node_state.POOL_LABEL]
                for n in observed
                if node_state.POOL_LABEL in n.labels
            }
            items += node_reports.compare(stack, reps, pool_by_node)
            statuses.append(SourceStatus(NODE_SOURCE, True))

    notes = [i for i in items if i.kind == "note"]
    items = conditions.fold([i for i in items if i.kind != "note"])
    order = {s: i for i, s in enumerate(ALL_SOURCES)}
    items.sort(key=lambda i: (order.get(i.source, 9), i.address, i.summary))
    statuses.sort(key=lambda s: order[s.name])
    return DriftReport(stack.name, tuple(items), tuple(statuses), tuple(notes))
