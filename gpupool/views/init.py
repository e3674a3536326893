"""Output of ``gpupool init``: the commented starter stack file, and the report of it.

``written`` is the one line of text, ``written_json`` the JSON document.

``stack_text`` turns a ``usecases.init.Starter`` into YAML a newcomer can read top to bottom:
every section says what it is for and which command or document tells more, and every
placeholder is marked ``REPLACE-ME``. Values are written as JSON scalars and lists (JSON is YAML),
so no quoting rule of YAML can change them.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from gpupool import modes
from gpupool.formats import FORMAT_VERSION

if TYPE_CHECKING:
    from gpupool.usecases.init import Starter, StarterPool


#: Plain (unquoted) YAML scalars that stay strings: a letter first, no flow or comment characters.
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9._/-]*")
_NOT_PLAIN = frozenset({"true", "false", "yes", "no", "on", "off", "null", "y", "n"})
#: The column end-of-line comments start at.
_COMMENT_AT = 36


def _value(v: Any) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, str) and _PLAIN.fullmatch(v) and v.lower() not in _NOT_PLAIN:
        return v
    return json.dumps(v, ensure_ascii=False)


def _noted(line: str, note: str) -> str:
    """Return ``line`` with an end-of-line comment, aligned."""
    return f"{line.ljust(_COMMENT_AT - 1)} # {note}"


def _provider(s: Starter) -> list[str]:
    lines = ["provider:", f"  cloud: {s.cloud.name}"]
    for key, value in s.cloud.starter.items():
        if isinstance(value, dict):
            lines.append(f"  {key}:")
            lines += [f"    {k}: {_value(v)}" for k, v in value.items()]
        else:
            lines.append(f"  {key}: {_value(value)}")
    return lines


def _pool(s: Starter, p: StarterPool) -> list[str]:
    gpu = p.gpu
    lines = [f"  - name: {p.name}"]
    if p.instance is not None:
        lines += [
            f"    # {p.instance.gpu_count} x {gpu.name} ({gpu.memory_gib:g} GiB each), "
            f"{p.instance.vcpus} vCPUs, {p.instance.memory_gib:g} GiB host memory; the others:",
            f"    # gpupool catalog instances --cloud {s.cloud.name} --gpu {gpu.name}",
            f"    instanceType: {_value(p.instance.name)}",
        ]
    elif s.cloud.provisions:
        lines += [
            f"    # the {s.cloud.display} instance type of the nodes, and the GPUs it carries "
            "(no static catalog lists them)",
            f"    instanceType: {_value(s.cloud.starter_instance_type)}",
        ]
    else:
        lines += [
            "    # the existing nodes of this pool (kubectl get nodes); gpupool labels them",
            f"    nodeNames: {_value([f'replace-me-{p.name}-node-1'])}",
        ]
    if p.instance is None:
        lines.append(f"    gpu: {_value({'model': gpu.name, 'count': 1})}")
    lines.append(_noted("    workload: inference", "training | inference | mixed"))
    if s.cloud.provisions:
        lines.append(_noted("    nodes: {min: 0, max: 2}", "the autoscaler keeps it in this range"))
    shared = ", ".join(m.name for m in modes.all_modes() if not m.whole)
    lines += [
        "    # One pod per GPU by default; to share GPUs add sharing: {mode: ...}, one of",
        f"    # {shared} (docs/stack-file.md, Sharing modes).",
        "    # Only pods that tolerate this taint land here; the tenant's snippet carries it.",
        f"    taints: [{{key: gpupool.io/pool, value: {p.name}, effect: NoSchedule}}]",
    ]
    return lines


def stack_text(s: Starter) -> str:
    """Return the starter stack file's text."""
    lines = [
        f"# yaml-language-server: $schema={s.schema}",
        "#",
        f"# A starter stack for {s.cloud.display} with {_gpus(s)} GPUs, from `gpupool init`.",
        "# Replace every REPLACE-ME, then: `gpupool validate` checks the file, `gpupool plan`",
        "# shows what it would create (offline), `gpupool up` applies it. Every key is in",
        "# gpupool's docs/stack-file.md; editors complete them through the schema line above.",
        "apiVersion: gpupool.io/v1",
        "kind: GpuPoolStack",
        "metadata:",
        _noted(f"  name: {s.name}", "also the Pulumi stack name"),
        _noted("  environment: development", "development | staging | production"),
        "",
        (
            f"# The {s.cloud.display} cluster the GPU {s.cloud.node_pool_noun}s join"
            if s.cloud.provisions
            else "# The existing cluster whose nodes gpupool labels (the kubeconfig's context)"
        ),
        "# (it must exist: gpupool never creates the cluster).",
        *_provider(s),
        "",
        f"# Each pool is one {s.cloud.node_pool_noun} of GPU nodes and how its GPUs are shared.",
        "pools:",
        *(line for p in s.pools for line in _pool(s, p)),
        "",
        "# Who may use which pool: each tenant gets a namespace, a ResourceQuota capping its GPUs",
        "# and pod-spec snippets (`gpupool render`) that land its pods on the pool.",
        "tenants:",
        "  - name: team-a",
        f"    pools: [{', '.join(p.name for p in s.pools)}]",
        "    limit: {gpus: 1}",
    ]
    return "\n".join(lines) + "\n"


def _gpus(s: Starter) -> str:
    names = [p.gpu.name for p in s.pools]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _described(p: StarterPool) -> str:
    return p.gpu.name + (f" ({p.instance.name})" if p.instance is not None else "")


def written(s: Starter, path: str) -> str:
    """Return what ``gpupool init`` prints once the file is written."""
    pools = (f"one pool of {_described(s.pools[0])}" if len(s.pools) == 1
             else f"{len(s.pools)} pools: " + ", ".join(_described(p) for p in s.pools))
    return (
        f"Wrote {path}: {s.cloud.display}, {pools}. Replace every REPLACE-ME, then run: "
        f"gpupool validate {path}\n"
    )


def written_json(s: Starter, path: str) -> str:
    """Return ``gpupool init --format json``'s document: what was written, and what to do next.

    ``pool``, ``gpu`` and ``instance_type`` are the first pool's; ``pools`` lists every pool.
    """
    doc = {
        "format_version": FORMAT_VERSION,
        "file": path,
        "cloud": s.cloud.name,
        "stack": s.name,
        "pool": s.pool,
        "gpu": s.gpu.name,
        "instance_type": s.instance.name if s.instance is not None else None,
        "pools": [
            {"name": p.name, "gpu": p.gpu.name,
             "instance_type": p.instance.name if p.instance is not None else None}
            for p in s.pools
        ],
        "placeholder": "REPLACE-ME",
        "next": f"gpupool validate {path}",
    }
    return json.dumps(doc, indent=2) + "\n"
