"""NVIDIA device-plugin configuration: time-slicing and MPS, one named config per pool.

This module owns the device-plugin ConfigMap the GPU Operator points the plugin at
(``devicePlugin.config.name``). Each pool gets the config ``pool-<name>``, selected on its nodes
by the label ``nvidia.com/device-plugin.config``; the config ``default`` (no sharing) serves GPU
nodes outside any pool. Under the GPU Operator an unlabelled node with no default would get an
empty config (the operator sets ``FALLBACK_STRATEGIES=empty``), so the default is always named.

Rules kept here (NVIDIA k8s-device-plugin ``api/config/v1``, ``cmd/nvidia-device-plugin`` and
README): ``version: v1``; never ``timeSlicing`` and ``mps`` in one config; never ``rename`` or
``devices`` (the plugin resets them); MPS only on ``nvidia.com/gpu`` and never under MIG
strategy mixed; ``failRequestsGreaterThanOne`` stated, so a pod asking for two replicas fails
instead of getting two slices of one GPU.

Nothing here is rendered when the NVIDIA device plugin is off: under scheduler HAMi, and on GKE
with ``driver: preinstalled``, where GKE's own plugin shares the GPUs (``enabled``).
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from gpupool import facts, modes
from gpupool.errors import RenderError
from gpupool.facts.names import (
    DEFAULT_DEVICE_PLUGIN_CONFIG,
    DEVICE_PLUGIN_CONFIGMAP,
    GPU_OPERATOR_NAMESPACE,
    GPU_RESOURCE,
    device_plugin_config_name,
)
from gpupool.graph import CloudResult, Resource
from gpupool.model import Pool, Stack
from gpupool.sharing.objects import k8s_object


def enabled(stack: Stack) -> bool:
    """Return True when the GPU Operator's device plugin runs and reads gpupool's configs.

    It does not under HAMi (HAMi's plugin replaces it) nor where the cloud shares the GPUs
    (``StackFacts.cloud_shares_gpus``: GKE's plugin does).
    """
    return facts.of(stack).device_plugin_configs


def pool_config(stack: Stack, pool: Pool) -> dict[str, Any]:
    """Return the device-plugin config (``version: v1``) of one pool.

    Exclusive, MIG and fractional (KAI) pools get flags only; time-slicing and MPS pools get a
    ``sharing`` block replicating ``nvidia.com/gpu``.

    Raises:
        RenderError: MPS under MIG strategy mixed (the plugin refuses to start).

    """
    strategy = facts.mig_strategy(stack)
    cfg: dict[str, Any] = {"version": "v1", "flags": {"migStrategy": strategy}}
    kind = pool.sharing.kind
    if kind.replicated and kind.device_plugin_key:
        if not kind.mig_mixed_ok and strategy == facts.MIG_MIXED:
            raise RenderError(
                f"pool {pool.name}: MPS cannot run under mig.strategy mixed (validation should "
                "have rejected this)"
            )
        block = {
            "renameByDefault": False,
            "failRequestsGreaterThanOne": True,
            "resources": [{"name": GPU_RESOURCE, "replicas": pool.sharing.slots_per_gpu}],
        }
        cfg["sharing"] = {kind.device_plugin_key: block}
    check(cfg)
    return cfg


def default_config(stack: Stack) -> dict[str, Any]:
    """Return the ``default`` config: whole GPUs, for GPU nodes outside every pool."""
    return {"version": "v1", "flags": {"migStrategy": facts.mig_strategy(stack)}}


def configs(stack: Stack) -> dict[str, dict[str, Any]]:
    """Return every named config: ``default`` first, then ``pool-<name>`` per pool."""
    out = {DEFAULT_DEVICE_PLUGIN_CONFIG: default_config(stack)}
    for pool in stack.pools:
        out[device_plugin_config_name(pool)] = pool_config(stack, pool)
    return out


def check(cfg: dict[str, Any]) -> None:
    """Raise ``RenderError`` if a config breaks a device-plugin invariant."""
    sharing = cfg.get("sharing", {})
    by_key = {m.device_plugin_key: m for m in modes.all_modes() if m.device_plugin_key}
    if len(sharing) > 1:
        raise RenderError(f"a device-plugin config may set one of {sorted(by_key)}, not both")
    for key, block in sharing.items():
        kind = by_key[key]
        for res in block["resources"]:
            if "rename" in res or "devices" in res:
                raise RenderError("device-plugin configs never set rename or devices")
            if kind.isolates and res["name"] != GPU_RESOURCE:
                raise RenderError(
                    f"{key.upper()} only shares {GPU_RESOURCE}, not {res['name']}"
                )
            if res["replicas"] < 2:
                raise RenderError(f"{key} replicas must be at least 2")


def build(stack: Stack, cloud: CloudResult, namespace_deps: tuple[str, ...]) -> list[Resource]:
    """Return the device-plugin ConfigMap (empty under HAMi).

    Args:
        stack: the validated stack.
        cloud: the cloud result (provider and node-pool addresses).
        namespace_deps: addresses of the operator namespace, when gpupool creates it.

    """
    if not enabled(stack):
        return []
    named = configs(stack)
    # pools of one shape share a config: dump each distinct one once (PyYAML's pure emitter
    # is most of the plan's time at 1,000 pools otherwise)
    dumped: dict[str, str] = {}
    data = {}
    for key, cfg in named.items():
        canon = json.dumps(cfg)
        if canon not in dumped:
            dumped[canon] = yaml.safe_dump(cfg, sort_keys=False)
        data[key] = dumped[canon]
    deps = list(namespace_deps)
    for pool in stack.pools:
        deps.extend(cloud.node_pools.get(pool.name, ()))
    plan_facts = {
        "default_config": DEFAULT_DEVICE_PLUGIN_CONFIG,
        "mig_strategy": facts.mig_strategy(stack),
        "pools": {
            pool.name: {
                "pool": pool.name,
                "config": device_plugin_config_name(pool),
                "mode": pool.sharing.mode,
                "replicas": pool.sharing.replicas,
                "mig_layout": dict(pool.sharing.mig_layout),
            }
            for pool in stack.pools
        },
    }
    manifest = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": DEVICE_PLUGIN_CONFIGMAP, "namespace": GPU_OPERATOR_NAMESPACE},
        "data": data,
    }
    return [
        k8s_object(
            stack, manifest, provider=cloud.k8s_provider, depends_on=tuple(deps), facts=plan_facts
        )
    ]
