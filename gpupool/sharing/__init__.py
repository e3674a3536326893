"""In-cluster sharing configuration, built from pools and tenants.

One module per mechanism turns pools and tenants into Kubernetes objects and Helm releases.

``build(stack, cloud)`` returns the in-cluster resources (GPU Operator, device-plugin and MIG
configs, HAMi or KAI, namespaces, quotas, priority classes, alerts), each depending on the node
pools it configures. ``node_labels(stack, pool)`` returns the labels a pool's nodes must carry so
that configuration selects them; cloud modules put them on their node pools.
``workload_snippets(stack)`` returns the pod-spec guidance render writes next to the program.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from gpupool.sharing.names import (
    DEVICE_PLUGIN_CONFIG_LABEL,
    GKE_NO_DEVICE_PLUGIN_LABEL,
    HAMI_NODE_LABEL,
    MIG_CONFIG_LABEL,
    MIG_DISABLED,
    POOL_LABEL,
    device_plugin_config_name,
    mig_config_name,
)
from gpupool.sharing.pools import cloud_shares_gpus

if TYPE_CHECKING:
    from gpupool.graph import Resource
    from gpupool.model import Pool, Stack
    from gpupool.providers import CloudResult

__all__ = ["build", "node_labels", "workload_snippets"]


def node_labels(stack: Stack, pool: Pool) -> dict[str, str]:
    """Return the labels every node of ``pool`` must carry for the sharing configuration.

    The labels are:

    * ``gpupool.io/pool: <pool>`` on every pool (snippets and alerts select by it);
    * ``nvidia.com/device-plugin.config: pool-<pool>``, naming the pool's entry in the
      device-plugin ConfigMap, whenever the operator's device plugin reads gpupool's configs
      (not under HAMi, not on GKE with ``driver: preinstalled``, where GKE's plugin shares);
    * ``nvidia.com/mig.config``: ``pool-<pool>`` for MIG pools, naming the pool's mig-parted
      config, else ``all-disabled`` (not on GKE with ``driver: preinstalled``: GKE partitions);
    * ``gpu: "on"`` when the scheduler is HAMi (its device plugin runs only on such nodes);
    * on GKE, ``gke-no-default-nvidia-gpu-device-plugin: "true"`` when another plugin serves
      the GPUs (the operator's with ``driver: operator``, or HAMi's): GKE's own would otherwise
      register ``nvidia.com/gpu`` beside it.

    The pool's own ``labels`` are not included; cloud modules add them alongside.

    Args:
        stack: the validated stack.
        pool: one of ``stack.pools``.

    Returns:
        Label keys to values, in a stable order.

    """
    from gpupool.sharing import deviceplugin, mig

    labels = {POOL_LABEL: pool.name}
    if deviceplugin.enabled(stack):
        labels[DEVICE_PLUGIN_CONFIG_LABEL] = device_plugin_config_name(pool)
    if mig.enabled(stack):
        labels[MIG_CONFIG_LABEL] = (
            mig_config_name(pool) if pool.sharing.mode == "mig" else MIG_DISABLED
        )
    if stack.cluster.scheduler == "hami":
        labels[HAMI_NODE_LABEL] = "on"
    if (
        stack.provider.cloud == "gcp"
        and stack.cluster.gpu_operator.install
        and not cloud_shares_gpus(stack)
    ) or (stack.provider.cloud == "gcp" and stack.cluster.scheduler == "hami"):
        labels[GKE_NO_DEVICE_PLUGIN_LABEL] = "true"
    return labels


def build(stack: Stack, cloud: CloudResult) -> list[Resource]:
    """Build every in-cluster resource of a stack.

    Order: the GPU Operator's namespace and the device-plugin and MIG ConfigMaps, the operator
    release, HAMi or KAI (release and queues), priority classes, tenant namespaces and quotas,
    then alerts. Every resource uses ``cloud.k8s_provider`` and depends on the node pools it
    configures.

    Args:
        stack: the validated stack.
        cloud: what the cloud module built (Kubernetes provider and node-pool addresses).

    Returns:
        The resources, in a dependency-respecting order.

    Raises:
        RenderingError: an invariant validation should have guaranteed does not hold.

    """
    from gpupool.sharing import alerts, deviceplugin, hami, kai, mig, operator, tenants

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
    out += hami.build(stack, cloud, after)
    out += kai.build(stack, cloud, after)
    out += tenants.build(stack, cloud)
    out += alerts.build(stack, cloud, ns_deps + after)
    return out


def _check(stack: Stack) -> None:
    """Raise ``RenderingError`` when the stack cannot be rendered faithfully.

    Validation runs the same rules (``gpupool.spec.checks.rendering``); reaching an error here
    means a stack skipped validation or a rule is missing there. Also checks that every config a
    node label names exists.
    """
    from gpupool.sharing import deviceplugin, mig
    from gpupool.sharing.objects import RenderingError
    from gpupool.spec.checks import rendering

    errors = [d for d in rendering.run(stack) if d.is_error]
    if errors:
        raise RenderingError(
            "cannot render the in-cluster configuration: "
            + "; ".join(f"{d.summary} [{d.code}]" for d in errors)
        )
    dp = deviceplugin.configs(stack) if deviceplugin.enabled(stack) else {}
    mig_configs = mig.config(stack)["mig-configs"]
    for pool in stack.pools:
        labels = node_labels(stack, pool)
        dp_name = labels.get(DEVICE_PLUGIN_CONFIG_LABEL)
        if dp_name is not None and dp_name not in dp:
            raise RenderingError(f"pool {pool.name}: no device-plugin config {dp_name}")
        mig_name = labels.get(MIG_CONFIG_LABEL, MIG_DISABLED)
        if mig_name != MIG_DISABLED and mig_name not in mig_configs:
            raise RenderingError(f"pool {pool.name}: no mig-parted config {mig_name}")


def workload_snippets(stack: Stack) -> dict[str, str]:
    """Return pod-spec YAML snippets per tenant and pool, keyed by relative file name.

    Args:
        stack: the validated stack.

    Returns:
        ``{"snippets/<tenant>--<pool>.yaml": yaml_text}``.

    """
    from gpupool.sharing import snippets

    return snippets.build(stack)
