"""Inference services: each checked against its tenant, its pool and autoscaling's known failures.

Errors, where KEDA, the HPA or the scheduler cannot do what the service says:

- ``service.duplicate-name``, ``service.unknown-tenant``, ``service.unknown-pool`` (a pool the
  stack lacks, or one its tenant was not given), with a did-you-mean;
- ``service.priority-not-tenants``: a priority other than its tenant's, which the tenant's
  admission policy refuses under ``cluster.admission.action: deny``;
- ``service.prometheus-url-missing``: KEDA's Prometheus triggers need ``serverAddress``;
- ``service.request-shape``: not exactly one GPU shape (``gpus``, ``fraction``, ``mig``, or
  ``gpuMemoryGiB`` alone), the workload file's rule (docs/workload.md);
- ``service.request-mode``: the shape does not suit the pool's sharing or its scheduler;
- ``service.replica-too-big``: one replica needs more than a node holds;
- ``service.over-pool``, ``service.over-limit``: ``replicas.max`` does not fit the pool at
  ``nodes.max``, or the tenant's limit;
- ``service.query-missing``, ``service.query-unused``, ``service.query-invalid``,
  ``service.query-many-series``, ``service.target-not-percent``: the triggers' PromQL and targets;
- ``service.gpu-metric-shared-gpu``, ``service.cannot-wake``: GPU metrics where they mean nothing,
  and scaling to zero on metrics only the service's own pods report.

Warnings: ``service.min-over-quota``, ``service.gpu-memory-never-falls``,
``service.cooldown-too-short``, ``service.zero-under-load``, ``service.single-replica``,
``service.on-spot``. Each rule
names its source beside it; docs/stack-file.md (Services) lists them for users.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpupool import didyoumean, schedulers
from gpupool.facts.services import Demand, replica_demand, tenant_of
from gpupool.model import Pool, Stack, Tenant
from gpupool.service_model import (
    GPU_MEMORY,
    PENDING_REQUESTS,
    QUERY_METRICS,
    QUEUE_TIME_RATIO,
    SHAPE_MIG,
    Service,
    Trigger,
)
from gpupool.spec.diagnostics import Diagnostic, error, warning
from gpupool.spec.promql import MATRIX, STRING, PromQLError, parse

#: Seconds from a node asked for to a node that takes pods: cluster-autoscaler's FAQ ("What are
#: the Service Level Objectives for Cluster Autoscaler?", kubernetes/autoscaler
#: ``cluster-autoscaler/FAQ.md``: "usually about 5 minutes" with provisioning); the figure
#: ``gpupool.simulate.autoscaler.SCALE_UP_SECONDS`` runs on too (a test holds them equal).
NODE_PROVISION_SECONDS = 300


def _hint(name: str, names: list[str]) -> str:
    hit = didyoumean.closest(name, names, 1, cutoff=0.6)
    return f" Did you mean '{hit[0]}'?" if hit else ""


def _names(stack: Stack) -> Iterator[Diagnostic]:
    seen: set[str] = set()
    for s in stack.services:
        if s.name in seen:
            yield error("service.duplicate-name", f"Duplicate service name '{s.name}'",
                        "Service names are unique in a stack: each is a ScaledObject and a "
                        "snippet file.", (*s.path, "name"))
        seen.add(s.name)


def _references(stack: Stack, s: Service) -> Iterator[Diagnostic]:
    tenant = tenant_of(stack, s)
    if tenant is None:
        names = sorted({t.name for t in stack.tenants})
        yield error("service.unknown-tenant", f"Unknown tenant '{s.tenant}'",
                    f"Service {s.name} names a tenant the stack does not declare."
                    f"{_hint(s.tenant, names)} Tenants: {', '.join(names) or 'none'}.",
                    (*s.path, "tenant"))
        return
    if stack.pool(s.pool) is None:
        names = [p.name for p in stack.pools]
        yield error("service.unknown-pool", f"Unknown pool '{s.pool}'",
                    f"Service {s.name} names a pool the stack does not declare."
                    f"{_hint(s.pool, names)} Pools: {', '.join(names)}.", (*s.path, "pool"))
    elif s.pool not in tenant.pools:
        yield error("service.unknown-pool", f"Pool '{s.pool}' is not one of tenant "
                    f"{tenant.name}'s pools",
                    f"Tenant {tenant.name} may use {', '.join(tenant.pools)}; give it {s.pool} "
                    "in tenants[].pools, or run the service there.", (*s.path, "pool"))
    yield from _priority(stack, s, tenant)


def _priority(stack: Stack, s: Service, tenant: Tenant) -> Iterator[Diagnostic]:
    """Check a replica's priority against its tenant's admission policy (sharing/admission.py).

    The policy admits a tenant's GPU pods only at the tenant's own priority class, so under
    ``cluster.admission.action: deny`` the API server refuses every replica of a service at
    another priority (the ValidatingAdmissionPolicy's validation fails: Kubernetes
    "Validating Admission Policy", validationActions Deny; ``warn`` and ``audit`` admit them).
    """
    if s.priority is None or s.priority == tenant.priority:
        return
    if stack.cluster.admission.action != "deny":
        return
    yield error("service.priority-not-tenants",
                f"Service {s.name} runs at priority {s.priority}, its tenant {tenant.name} at "
                f"{tenant.priority}: the tenant's admission policy refuses every replica",
                f"Tenant {tenant.name}'s policy admits its GPU pods only at priority "
                f"{tenant.priority}. Drop the service's priority, or give it a tenant of its "
                f"own at priority {s.priority}.", (*s.path, "priority"))


def _shape(s: Service) -> Iterator[Diagnostic]:
    r = s.request
    # docs/workload.md "One GPU shape": the same rule as a workload row
    if len(r.shapes) > 1:
        yield error("service.request-shape", f"{' and '.join(r.shapes)} both set: a replica "
                    "asks for one GPU shape", "gpus: whole GPUs; fraction: a share of one GPU; "
                    "mig: one MIG instance. Keep one.", (*s.path, r.shapes[1]))
    elif not r.shapes and r.gpu_memory_gib is None:
        yield error("service.request-shape", f"Service {s.name} asks for no GPU",
                    "A service runs on a GPU pool: give gpus, fraction, mig or gpuMemoryGiB.",
                    s.path, anchor="key")
    elif r.mig is not None and r.gpu_memory_gib is not None:
        yield error("service.request-shape", "gpuMemoryGiB set beside mig: a MIG profile "
                    "fixes its memory", "Drop gpuMemoryGiB.", (*s.path, "gpuMemoryGiB"))


def _mode(stack: Stack, s: Service, pool: Pool) -> Iterator[Diagnostic]:
    r, mode = s.request, pool.sharing.kind
    fractional = r.fraction is not None or (not r.shapes and r.gpu_memory_gib is not None)
    if r.mig is not None and not mode.partitioned:
        yield _mode_error(s, pool, SHAPE_MIG, "mig asks for a MIG instance")
    elif mode.partitioned and r.mig is None:
        yield _mode_error(s, pool, r.shapes[0] if r.shapes else "gpuMemoryGiB",
                          "a MIG pool serves MIG instances only: ask for one with mig")
    elif mode.partitioned and r.mig not in dict(pool.sharing.mig_layout):
        profiles = [p for p, _ in pool.sharing.mig_layout]
        hint = _hint(str(r.mig), profiles)
        yield _mode_error(s, pool, SHAPE_MIG, f"the layout has no {r.mig}{hint} (profiles: "
                          f"{', '.join(profiles)})")
    elif fractional and not mode.scheduler_slots:
        key = "fraction" if r.fraction is not None else "gpuMemoryGiB"
        yield _mode_error(s, pool, key, "a share of a GPU needs a fractional pool (HAMi or KAI)")
    elif r.gpu_memory_gib is not None and not mode.scheduler_slots:
        yield _mode_error(s, pool, "gpuMemoryGiB", "GPU memory is a HAMi or KAI request")
    elif (mode.scheduler_slots and schedulers.of(stack).fractions_by_annotation
          and r.fraction is not None
          and r.gpu_memory_gib is not None):
        # KAI takes gpu-fraction or gpu-memory, not both (KAI docs/gpu-sharing/README.md)
        yield _mode_error(s, pool, "gpuMemoryGiB", "KAI reads gpu-fraction or gpu-memory, not both")


def _mode_error(s: Service, pool: Pool, key: str, why: str) -> Diagnostic:
    return error("service.request-mode", f"Service {s.name}'s request does not suit pool "
                 f"{pool.name} ({pool.sharing.mode})", f"{why[0].upper()}{why[1:]}.",
                 (*s.path, key))


def _fits(stack: Stack, s: Service, pool: Pool, d: Demand, tenant: Tenant | None
          ) -> Iterator[Diagnostic]:
    node = pool.gpus_per_node * d.per_gpu
    if d.slots > node:
        # a pod runs on one node: kubernetes schedules a pod's whole request there
        yield error("service.replica-too-big", f"One replica of {s.name} needs {d.slots} "
                    f"{d.kind} slots, more than a node of {pool.name} has ({node})",
                    "No node can take a replica: ask for less, or use a pool of larger nodes.",
                    (*s.path, s.request.shapes[0] if s.request.shapes else "gpuMemoryGiB"))
        return
    slots, gpus = d.at(s.replicas_max)
    if slots > d.capacity:
        yield error("service.over-pool", f"replicas.max {s.replicas_max} of {s.name} needs "
                    f"{slots} {d.kind} slots, more than pool {pool.name} holds at nodes.max "
                    f"({d.capacity})",
                    "KEDA would ask for replicas no node can take, and they would stay Pending. "
                    "Lower replicas.max or raise the pool's nodes.max.",
                    (*s.path, "replicas", "max"))
    if tenant is not None and tenant.limit_gpus is not None and gpus > tenant.limit_gpus + 1e-9:
        yield error("service.over-limit", f"replicas.max {s.replicas_max} of {s.name} needs "
                    f"{gpus:g} GPUs, above tenant {tenant.name}'s limit {tenant.limit_gpus:g}",
                    "The tenant's ResourceQuota (or KAI queue limit) refuses the replicas above "
                    "it. Lower replicas.max or raise limit.gpus.", (*s.path, "replicas", "max"))
    low = d.at(s.replicas_min)[1]
    if tenant is not None and tenant.quota_gpus is not None and low > tenant.quota_gpus + 1e-9:
        yield warning("service.min-over-quota", f"replicas.min {s.replicas_min} of {s.name} "
                      f"takes {low:g} GPUs, above tenant {tenant.name}'s quota "
                      f"{tenant.quota_gpus:g}", "The service's floor is not guaranteed: "
                      "replicas beyond the quota may wait or be reclaimed.",
                      (*s.path, "replicas", "min"))


def _trigger(s: Service, t: Trigger, pool: Pool | None) -> Iterator[Diagnostic]:
    if t.metric in QUERY_METRICS and t.query is None:
        yield error("service.query-missing", f"{t.metric} needs a query",
                    "Give the PromQL that returns the metric for the whole service.",
                    (*t.path, "metric"))
    if t.metric not in QUERY_METRICS and t.query is not None:
        yield error("service.query-unused", f"{t.metric} takes no query",
                    "gpupool writes this trigger's query itself (docs/stack-file.md, Services); "
                    "drop query, or scale on requests-per-second or pending-requests.",
                    (*t.path, "query"))
    if t.query is not None and t.metric in QUERY_METRICS:
        yield from _query(t)
    if t.reads_gpu and t.target > 100:
        yield error("service.target-not-percent", f"{t.metric} target {t.target:g} is above "
                    "100%", "GPU triggers are percent (0 to 100).", (*t.path, "target"))
    if pool is None or not t.reads_gpu:
        return
    if pool.sharing.kind.replicated:
        # NVIDIA/dcgm-exporter #307, #587, #642: on time-sliced and MPS GPUs every pod gets the
        # whole GPU's value (an NVML limitation, per the maintainers)
        yield error("service.gpu-metric-shared-gpu", f"{t.metric} means nothing on "
                    f"{pool.sharing.mode} pool {pool.name}",
                    "The DCGM exporter gives every pod sharing a GPU the whole GPU's value, so "
                    "the service's own load cannot be read. Scale on requests or queue time.",
                    (*t.path, "metric"))
    elif t.metric == GPU_MEMORY and pool.workload == "inference":
        # Google Cloud, "Best practices for autoscaling LLM inference workloads with GPUs":
        # servers that pre-allocate memory (vLLM, TGI) never lower DCGM_FI_DEV_FB_USED
        yield warning("service.gpu-memory-never-falls", f"gpu-memory on inference pool "
                      f"{pool.name} may only ever scale up",
                      "Inference servers that pre-allocate GPU memory (vLLM, TGI) hold it "
                      "whatever the load, so this trigger never lets replicas go. Scale on "
                      "queue time or pending requests.", (*t.path, "metric"))


def _query(t: Trigger) -> Iterator[Diagnostic]:
    try:
        e = parse(str(t.query))
    except PromQLError as exc:
        yield error("service.query-invalid", "The query is not PromQL",
                    f"At character {exc.offset + 1}: {exc}.", (*t.path, "query"))
        return
    if e.type in (MATRIX, STRING):
        yield error("service.query-invalid", f"The query returns a {e.type}",
                    "KEDA reads an instant vector or a scalar.", (*t.path, "query"))
    elif not e.single:
        # kedacore/keda pkg/scalers/prometheus_scaler.go: more than one element is an error
        yield error("service.query-many-series", "The query can return more than one series",
                    "KEDA's Prometheus scaler fails on a result of several series: aggregate "
                    "the query at its top (sum(...), avg(...), max(...) with no by clause).",
                    (*t.path, "query"))


def _wake_and_cooldown(stack: Stack, s: Service, pool: Pool | None) -> Iterator[Diagnostic]:
    if not s.scales_to_zero:
        return
    if cannot_wake(s):
        gpu = all(t.reads_gpu for t in s.triggers)
        what = "GPU metrics" if gpu else "metrics its own pods report"
        why = ("no pod uses a GPU" if gpu else
               "no pod reports a GPU or Triton queue-time series")
        yield error("service.cannot-wake", f"Service {s.name} scales to zero on {what} "
                    "only, so it can never wake", f"At zero replicas {why} and the trigger "
                    "stays at 0. Add a requests-per-second or pending-requests trigger whose "
                    "query reads outside the service's pods, or keep replicas.min at 1.",
                    (*s.path, "replicas", "min"))
    if pool is None or pool.nodes.min > 0 or not stack.cloud.provisions:
        return
    need = NODE_PROVISION_SECONDS + s.startup_seconds
    if s.cooldown_seconds < need:
        # kserve/kserve #1247, #1641: scaled to zero before a GPU node and the model arrive
        yield warning("service.cooldown-too-short", f"cooldownSeconds {s.cooldown_seconds} is "
                      f"shorter than node provisioning plus startup ({need} s)",
                      f"From zero, a replica waits about {NODE_PROVISION_SECONDS} s for a GPU "
                      f"node of {pool.name} (nodes.min 0) and {s.startup_seconds} s to load; "
                      f"a service idle for only {s.cooldown_seconds} s goes back to zero "
                      f"sooner than that. Raise cooldownSeconds to at least {need}, or keep "
                      "replicas.min at 1.", (*s.path, "cooldownSeconds"))


def cannot_wake(s: Service) -> bool:
    """Say whether ``s`` scales to zero with every trigger on a series its own pods report.

    pmady/keda-gpu-scaler #142: at zero replicas nothing uses the GPU, so no GPU value ever
    activates the scaler. The same holds of ``queue-time-ratio``: gpupool's recording rule reads
    Triton's ``nv_inference_queue_duration_us`` from the service's pods
    (``gpupool.sharing.service_rules``), and with no pod there is no series, which KEDA's
    Prometheus scaler reads as 0 (``ignoreNullValues``, true by default,
    ``pkg/scalers/prometheus_scaler.go``): never above the activation threshold.
    """
    return s.scales_to_zero and bool(s.triggers) and all(
        t.reads_gpu or t.metric == QUEUE_TIME_RATIO for t in s.triggers)


def zero_under_load(s: Service) -> bool:
    """Say whether KEDA may take ``s`` to zero replicas while its requests still flow.

    A service scaled to zero (``replicas.min: 0``) whose every trigger is ``pending-requests``
    reads 0 whenever its replicas keep up: nothing waits. KEDA's Prometheus scaler is active
    only above its activation threshold (kedacore/keda ``pkg/scalers/prometheus_scaler.go``,
    ``val > activationThreshold``, 0 as gpupool renders it), and ``RequestScale``
    (``pkg/scaling/executor/scale_scaledobjects.go``, v2.20) scales a ScaledObject with
    ``minReplicaCount`` 0 that no trigger keeps active to 0 once ``lastActiveTime`` plus
    ``cooldownPeriod`` is past, whatever the traffic: the queue's next request waits for a
    cold start. A rate, queue-time or GPU trigger reads above 0 while requests are served.
    """
    return s.scales_to_zero and bool(s.triggers) and all(
        t.metric == PENDING_REQUESTS for t in s.triggers)


def _zero_under_load(s: Service) -> Iterator[Diagnostic]:
    if not zero_under_load(s):
        return
    yield warning("service.zero-under-load", f"Service {s.name} may scale to zero under "
                  "steady traffic", "pending-requests reads 0 whenever the replicas keep up, "
                  "which is not above KEDA's activation threshold, so after cooldownSeconds "
                  f"({s.cooldown_seconds} s) KEDA takes the service to zero while requests "
                  "still come, and the next ones wait for a cold start. Add a "
                  "requests-per-second trigger, or keep replicas.min at 1.",
                  (*s.path, "scaleOn"))


def _production(stack: Stack, s: Service, pool: Pool | None) -> Iterator[Diagnostic]:
    if stack.environment != "production":
        return
    # seed 004: replicas of a production service spread over nodes; one replica is one failure
    if s.replicas_min < 2:
        yield warning("service.single-replica", f"Production service {s.name} may run a single "
                      "replica", f"replicas.min {s.replicas_min}: one node or pod failure stops "
                      "the service. Use replicas.min 2 or more.", (*s.path, "replicas", "min"))
    if pool is not None and pool.capacity.spot:
        yield warning("service.on-spot", f"Every replica of production service {s.name} can "
                      f"land on spot capacity", f"Pool {pool.name} is spot: one reclaim can take "
                      "all replicas. Run it on an on-demand pool.", (*s.path, "pool"))


def _service(stack: Stack, s: Service) -> Iterator[Diagnostic]:
    refs = list(_references(stack, s))
    yield from refs
    pool = None if refs else stack.pool(s.pool)
    shape = list(_shape(s))
    yield from shape
    if pool is not None and not shape:
        modes = list(_mode(stack, s, pool))
        yield from modes
        d = None if modes else replica_demand(stack, s)
        if d is not None:
            yield from _fits(stack, s, pool, d, tenant_of(stack, s))
    for t in s.triggers:
        yield from _trigger(s, t, pool)
    yield from _wake_and_cooldown(stack, s, pool)
    yield from _zero_under_load(s)
    yield from _production(stack, s, pool)


def run(stack: Stack) -> list[Diagnostic]:
    """Check every service: names, references, request, capacity, triggers, scaling to zero."""
    if not stack.services:
        return []
    out = list(_names(stack))
    prom = stack.cluster.monitoring.prometheus
    if prom is None or prom.url is None:
        out.append(error("service.prometheus-url-missing", "Services need "
                         "cluster.monitoring.prometheus.url",
                         "KEDA's Prometheus triggers query it (serverAddress), e.g. "
                         "http://prometheus-operated.monitoring.svc:9090.", ("services",),
                         anchor="key"))
    for s in stack.services:
        out += _service(stack, s)
    return out
