"""GPU memory alerts: one PrometheusRule with one alert per pool.

This module owns ``k8s.prometheusrule.gpu-operator.gpupool-gpu-memory``, rendered when
``cluster.monitoring.alerts.gpuMemoryPercent`` is set. Each pool's rule fires when a GPU (or MIG
instance) on the pool's nodes has used more than that share of its framebuffer for 5 minutes:
``DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE)``, from the GPU Operator's
DCGM exporter.

Selecting a pool's GPUs: DCGM series carry the node name in ``Hostname``, not node labels.

* Pools whose node names are known (``cloud: kubernetes``) match ``Hostname`` directly.
* Other pools join ``kube_node_labels`` from kube-state-metrics on the node name, which needs
  kube-state-metrics to export the pool label, giving ``label_gpupool_io_pool``
  (``--metric-labels-allowlist=nodes=[gpupool.io/pool]``). Without it those rules stay silent.

The rule lives in the GPU Operator's namespace next to the exporter; Prometheus must be set to
select it (prometheus-operator ``ruleSelector``/``ruleNamespaceSelector``).
"""

from __future__ import annotations

from gpupool.facts.names import GPU_OPERATOR_NAMESPACE
from gpupool.graph import CloudResult, Resource
from gpupool.model import Pool, Stack
from gpupool.sharing.objects import k8s_object

RULE_NAME = "gpupool-gpu-memory"
ALERT = "GpupoolGpuMemoryHigh"

_USED = "DCGM_FI_DEV_FB_USED"
_FREE = "DCGM_FI_DEV_FB_FREE"


def _ratio(selector: str) -> str:
    return f"100 * {_USED}{selector} / ({_USED}{selector} + {_FREE}{selector})"


def expression(pool: Pool, percent: int) -> str:
    """Return the PromQL expression of a pool's alert."""
    if pool.node_names:
        # Node names are DNS subdomains: only "." is special in a regex. PromQL strings take
        # backslash escapes, so the regex's "\." is written "\\." inside the quotes.
        names = "|".join(n.replace(".", "\\\\.") for n in pool.node_names)
        selector = '{Hostname=~"' + names + '"}'
        return f"{_ratio(selector)} > {percent}"
    nodes = (
        f'label_replace(kube_node_labels{{label_gpupool_io_pool="{pool.name}"}}, '
        '"Hostname", "$1", "node", "(.*)")'
    )
    return (
        f"({_ratio('')})\n"
        f"  * on (Hostname) group_left (label_gpupool_io_pool)\n"
        f"  {nodes}\n"
        f"> {percent}"
    )


def build(stack: Stack, cloud: CloudResult, after: tuple[str, ...]) -> list[Resource]:
    """Return the PrometheusRule, or nothing when no alert threshold is set.

    Args:
        stack: the validated stack.
        cloud: the cloud result.
        after: addresses the rule must follow (operator namespace and release, when rendered).

    """
    percent = stack.cluster.monitoring.gpu_memory_alert_percent
    if percent is None:
        return []
    rules = []
    deps = list(after)
    for pool in stack.pools:
        deps.extend(cloud.node_pools.get(pool.name, ()))
        rules.append(
            {
                "alert": ALERT,
                "expr": expression(pool, percent),
                "for": "5m",
                "labels": {"severity": "warning", "pool": pool.name, "stack": stack.name},
                "annotations": {
                    "summary": f"GPU memory above {percent}% on pool {pool.name}",
                    "description": (
                        "GPU {{ $labels.gpu }} on node {{ $labels.Hostname }} uses "
                        "{{ $value | humanize }}% of its framebuffer (pool "
                        f"{pool.name}, threshold {percent}%)."
                    ),
                },
            }
        )
    manifest = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": RULE_NAME, "namespace": GPU_OPERATOR_NAMESPACE},
        "spec": {"groups": [{"name": f"gpupool.{stack.name}.gpu-memory", "rules": rules}]},
    }
    return [
        k8s_object(
            stack,
            manifest,
            provider=cloud.k8s_provider,
            depends_on=tuple(deps),
            facts={"gpu_memory_percent": percent, "pools": [p.name for p in stack.pools]},
        )
    ]
