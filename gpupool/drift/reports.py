"""``gpupool node inspect`` reports (NVML, read on the nodes) against the declared pools.

Faults (uncorrected ECC errors, overheating, unreachable GPUs) are reported whatever the pool.
When a report's node belongs to a pool (by the pool label of the node with that name, or because
the pool names the node), its GPU model and MIG state are compared with the declaration too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gpupool.drift.report import DriftItem
from gpupool.errors import InputError
from gpupool.model import Pool, Stack

MAX_REPORT_BYTES = 4 * 1024 * 1024


def load_reports(directory: Path) -> list[dict[str, Any]]:
    """Read every ``*.json`` node report in a directory.

    Raises:
        InputError: the directory is missing, or a report is not a node report.

    """
    if not directory.is_dir():
        raise InputError(f"{directory}: not a directory of node reports")
    out = []
    for path in sorted(directory.glob("*.json")):
        try:
            if path.stat().st_size > MAX_REPORT_BYTES:
                raise InputError(f"{path}: larger than a node report can be")
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise InputError(f"{path}: not a readable node report ({exc})") from None
        if (
            not isinstance(data, dict)
            or data.get("format_version") != "1"
            or not isinstance(data.get("gpus"), list)
        ):
            raise InputError(f"{path}: not a gpupool node report (format_version 1)")
        data.setdefault("_file", path.name)
        out.append(data)
    return out


def _node_name(report: Mapping[str, Any]) -> str:
    return str(report.get("node_name") or report.get("hostname") or report.get("_file", "?"))


def _pool_of(stack: Stack, name: str, pool_by_node: Mapping[str, str]) -> Pool | None:
    if name in pool_by_node:
        return stack.pool(pool_by_node[name])
    return next((p for p in stack.pools if name in p.node_names), None)


def _same_model(declared: str, observed: str) -> bool:
    from gpupool import catalog

    hit = catalog.gpu(observed) or catalog.gpu(observed.replace("NVIDIA ", "").replace(" ", "-"))
    if hit is not None:
        return hit.name == declared
    norm = observed.upper().replace("NVIDIA", "").replace(" ", "").replace("-", "")
    return declared.upper().replace("-", "") in norm or norm in declared.upper().replace("-", "")


def compare(
    stack: Stack, reports: Sequence[Mapping[str, Any]], pool_by_node: Mapping[str, str]
) -> list[DriftItem]:
    """Compare node reports with the stack; ``pool_by_node`` maps node names to pools."""
    out: list[DriftItem] = []
    for rep in reports:
        name = _node_name(rep)
        pool = _pool_of(stack, name, pool_by_node)
        base = f"pool.{pool.name}/node/{name}" if pool else f"node/{name}"
        for fault in rep.get("faults", []):
            out.append(
                DriftItem(
                    "node",
                    f"{base}/gpu/{fault.get('gpu')}",
                    None,
                    fault.get("kind"),
                    str(fault.get("detail", "")),
                    kind="fault",
                )
            )
        if pool is None or pool.gpu is None:
            continue
        gpus = [g for g in rep["gpus"] if isinstance(g, dict)]
        if len(gpus) != pool.gpus_per_node:
            out.append(
                DriftItem(
                    "node",
                    base,
                    pool.gpus_per_node,
                    len(gpus),
                    f"NVML sees {len(gpus)} GPU(s), pool declares {pool.gpus_per_node}",
                )
            )
        want_mig = pool.sharing.mode == "mig"
        layout = dict(pool.sharing.mig_layout)
        for g in gpus:
            gaddr = f"{base}/gpu/{g.get('index')}"
            model = str(g.get("name") or "")
            if model and not _same_model(pool.gpu.name, model):
                out.append(
                    DriftItem(
                        "node",
                        gaddr,
                        pool.gpu.name,
                        model,
                        f"GPU is {model}, pool declares {pool.gpu.name}",
                    )
                )
            mig = g.get("mig") or {}
            if mig.get("supported") is False:
                continue
            enabled = mig.get("current") == "enabled"
            if enabled != want_mig:
                out.append(
                    DriftItem(
                        "node",
                        gaddr,
                        "enabled" if want_mig else "disabled",
                        mig.get("current"),
                        "MIG mode differs from the pool's",
                    )
                )
            elif want_mig:
                got: dict[str, int] = {}
                for gi in mig.get("gpu_instances", []):
                    prof = str(gi.get("profile"))
                    got[prof] = got.get(prof, 0) + 1
                if got != layout:
                    out.append(
                        DriftItem(
                            "node",
                            gaddr,
                            layout,
                            got,
                            "MIG instances differ from the declared layout",
                        )
                    )
    return out
