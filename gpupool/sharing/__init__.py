"""In-cluster sharing configuration, built from pools and tenants.

One module per mechanism turns pools and tenants into Kubernetes objects and Helm releases; the
stack's GPU scheduler's own module (``kai``, ``hami``) is found by ``scheduler`` from its plug-in.

``build(stack, cloud)`` returns the in-cluster resources (GPU Operator, device-plugin and MIG
configs, the EFA device plugin, GKE's GPUDirect networks, HAMi or KAI, NVSentinel, namespaces,
quotas, priority classes, admission policies, alerts and their dashboard, showback recording
rules), each depending on the node pools it configures. What each pool's nodes advertise and the
labels that select them are GPU facts (``gpupool.facts``), which the cloud modules read too.
``workload_snippets(stack)`` returns the pod-spec guidance render writes next to the program.
"""

from __future__ import annotations

from dataclasses import replace

from gpupool import facts
from gpupool.errors import RenderError
from gpupool.facts.names import DEVICE_PLUGIN_CONFIG_LABEL, MIG_CONFIG_LABEL, MIG_DISABLED
from gpupool.graph import CloudResult, Resource
from gpupool.model import Stack
from gpupool.sharing import (
    admission,
    alerts,
    dashboard,
    deviceplugin,
    efa,
    gpudirect,
    keda,
    mig,
    nvsentinel,
    operator,
    scheduler,
    service_rules,
    service_snippets,
    showback,
    snippets,
    tenants,
)
from gpupool.spec.checks import rendering

__all__ = ["build", "workload_snippets"]


def build(stack: Stack, cloud: CloudResult) -> list[Resource]:
    """Build every in-cluster resource of a stack.

    Order: the GPU Operator's namespace and the device-plugin and MIG ConfigMaps, the operator
    release, the EFA device plugin, GKE's GPUDirect networks, HAMi or KAI (release and queues),
    NVSentinel (its namespace and release, after the operator's DCGM), priority classes, tenant
    namespaces and quotas, the tenants' admission policies, then alerts, their dashboard and the
    showback rules. Every resource uses ``cloud.k8s_provider`` and depends on the node pools it
    configures.

    Args:
        stack: the validated stack.
        cloud: what the cloud module built (Kubernetes provider and node-pool addresses).

    Returns:
        The resources, in a dependency-respecting order.

    Raises:
        RenderError: an invariant validation should have guaranteed does not hold.

    """
    _check(stack)
    ns = operator.namespace(stack, cloud)
    ns_deps = (operator.NAMESPACE_ADDRESS,) if ns else ()
    configs = deviceplugin.build(stack, cloud, ns_deps) + mig.build(stack, cloud, ns_deps)
    if not stack.cluster.gpu_operator.install:
        expected = operator.expected_values(stack)
        configs = [replace(r, facts={**r.facts, "operator_values": expected}) for r in configs]
    release = operator.release(stack, cloud, ns + configs)
    after = tuple(r.address for r in release)
    out = [*ns, *configs, *release]
    out += efa.build(stack, cloud)
    out += gpudirect.build(stack, cloud)
    out += scheduler.build(stack, cloud, after)
    out += nvsentinel.build(stack, cloud, after)
    tenant_objects = tenants.build(stack, cloud)
    out += tenant_objects
    namespaces = {r.manifest["metadata"]["name"]: r.address for r in tenant_objects
                  if r.manifest and r.manifest["kind"] == "Namespace"}
    out += admission.build(stack, cloud, namespaces)
    out += alerts.build(stack, cloud, ns_deps + after)
    out += dashboard.build(stack, cloud, ns_deps)
    out += showback.build(stack, cloud, ns_deps + after)
    # the services: KEDA, a ScaledObject each, the recordings their triggers read
    out += keda.build(stack, cloud, namespaces, after)
    out += service_rules.build(stack, cloud, ns_deps + after)
    return out


def _check(stack: Stack) -> None:
    """Raise ``RenderError`` when the stack cannot be rendered faithfully.

    Validation runs the same rules (``gpupool.spec.checks.rendering``); reaching an error here
    means a stack skipped validation or a rule is missing there. Also checks that every config a
    node label names exists.
    """
    errors = [d for d in rendering.run(stack) if d.is_error]
    if errors:
        raise RenderError(
            "cannot render the in-cluster configuration: "
            + "; ".join(f"{d.summary} [{d.code}]" for d in errors)
        )
    dp = deviceplugin.configs(stack) if facts.of(stack).device_plugin_configs else {}
    mig_configs = mig.config(stack)["mig-configs"]
    for pool in stack.pools:
        labels = facts.node_labels(stack, pool)
        dp_name = labels.get(DEVICE_PLUGIN_CONFIG_LABEL)
        if dp_name is not None and dp_name not in dp:
            raise RenderError(f"pool {pool.name}: no device-plugin config {dp_name}")
        mig_name = labels.get(MIG_CONFIG_LABEL, MIG_DISABLED)
        if mig_name != MIG_DISABLED and mig_name not in mig_configs:
            raise RenderError(f"pool {pool.name}: no mig-parted config {mig_name}")


def workload_snippets(stack: Stack) -> dict[str, str]:
    """Return pod-spec YAML snippets per tenant and pool, keyed by relative file name.

    Args:
        stack: the validated stack.

    Returns:
        ``{"snippets/<tenant>--<pool>.yaml": yaml_text}``, and per service
        ``snippets/service.<name>.yaml``.

    """
    return {**snippets.build(stack), **service_snippets.build(stack)}
