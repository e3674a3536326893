"""``gpupool node inspect`` reports (NVML, read on the nodes) against the declared pools.

Owns reading a directory of node report files (only regular files, at most
``MAX_REPORT_BYTES`` of each through ``gpupool.files.read_regular``, so a FIFO or a link to
``/dev/zero`` named ``*.json`` is an error, not a hang; each checked and rebuilt by
``gpupool.nodes.report.NodeReport.from_json``) and comparing them with the stack. Faults
(uncorrected ECC errors, overheating, unreachable GPUs), as the report recorded them, are
reported whatever the pool. When a report's node belongs to a pool (by the pool label of the
node with that name, or because the pool names the node), its GPU count, GPU model and MIG state
are compared with the declaration too. Each fault and the GPU count carry ``evidence_of``, so
``gpupool.drift.conditions.fold`` merges them into a GPU health condition reporting the same.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from gpupool import catalog
from gpupool.drift import conditions
from gpupool.drift.items import DriftItem
from gpupool.errors import InputError
from gpupool.files import TooLargeError, read_regular
from gpupool.model import Pool, Stack
from gpupool.nodes.report import NodeReport

MAX_REPORT_BYTES = 4 * 1024 * 1024


class NoReports(InputError):
    """The report folder is missing, cannot be listed or holds no report: nothing was looked at.

    The node source is then "not checked" (skipped, or an error under ``--require node``),
    never "no drift".
    """


def load_reports(directory: Path) -> list[NodeReport]:
    """Read every ``*.json`` node report in a directory, in file-name order.

    Raises:
        NoReports: the directory is missing, cannot be listed, or holds no ``*.json`` file.
        InputError: a file is not a regular file (a FIFO, a device), larger than
            ``MAX_REPORT_BYTES``, unreadable, nested too deeply or not a node report (the message
            names the file).

    """
    if not directory.is_dir():
        raise NoReports(f"{directory}: not a directory of node reports")
    try:
        names = os.listdir(directory)  # glob() hides a folder it cannot list behind "no files"
    except OSError as exc:
        raise NoReports(f"{directory}: cannot be read ({exc.strerror or exc})") from None
    if not any(name.endswith(".json") for name in names):
        raise NoReports(f"{directory}: holds no node report (*.json from gpupool node inspect)")
    out = []
    for path in sorted(directory.glob("*.json")):
        try:
            data = json.loads(read_regular(path, MAX_REPORT_BYTES).decode("utf-8"))
        except TooLargeError:
            raise InputError(f"{path}: larger than a node report can be") from None
        except OSError as exc:
            raise InputError(f"{path}: not a readable node report "
                             f"({exc.strerror or exc})") from None
        except RecursionError:
            raise InputError(f"{path}: not a readable node report (nested too deeply)") from None
        except (UnicodeDecodeError, ValueError) as exc:
            raise InputError(f"{path}: not a readable node report ({exc})") from None
        try:
            out.append(NodeReport.from_json(data))
        except InputError as exc:
            raise InputError(f"{path}: {exc}") from None
    return out


def _pool_of(stack: Stack, name: str, pool_by_node: Mapping[str, str]) -> Pool | None:
    if name in pool_by_node:
        return stack.pool(pool_by_node[name])
    return next((p for p in stack.pools if name in p.node_names), None)


def _same_model(declared: str, observed: str) -> bool:
    hit = catalog.gpu(observed) or catalog.gpu(observed.replace("NVIDIA ", "").replace(" ", "-"))
    if hit is not None:
        return hit.name == declared
    norm = observed.upper().replace("NVIDIA", "").replace(" ", "").replace("-", "")
    return declared.upper().replace("-", "") in norm or norm in declared.upper().replace("-", "")


def compare(
    stack: Stack, reports: Sequence[NodeReport], pool_by_node: Mapping[str, str]
) -> list[DriftItem]:
    """Compare node reports with the stack; ``pool_by_node`` maps node names to pools."""
    out: list[DriftItem] = []
    for rep in reports:
        name = rep.node_name or rep.hostname
        pool = _pool_of(stack, name, pool_by_node)
        base = f"pool.{pool.name}/node/{name}" if pool else f"node/{name}"
        for fault in rep.faults:
            out.append(
                DriftItem(
                    "node",
                    f"{base}/gpu/{fault.gpu}",
                    None,
                    fault.kind,
                    fault.detail,
                    kind="fault",
                    evidence_of=(name, fault.kind),
                )
            )
        if pool is None or pool.gpu is None:
            continue
        gpus = rep.gpus
        if len(gpus) != pool.gpus_per_node:
            out.append(
                DriftItem(
                    "node",
                    base,
                    pool.gpus_per_node,
                    len(gpus),
                    f"NVML sees {len(gpus)} GPU(s), pool declares {pool.gpus_per_node}",
                    evidence_of=(name, conditions.GPU_COUNT),
                )
            )
        want_mig = pool.sharing.kind.partitioned
        layout = dict(pool.sharing.mig_layout)
        for g in gpus:
            gaddr = f"{base}/gpu/{g.index}"
            model = g.name or ""
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
            if g.mig.supported is False:
                continue
            enabled = g.mig.current == "enabled"
            if enabled != want_mig:
                out.append(
                    DriftItem(
                        "node",
                        gaddr,
                        "enabled" if want_mig else "disabled",
                        g.mig.current,
                        "MIG mode differs from the pool's",
                    )
                )
            elif want_mig:
                got: dict[str, int] = {}
                for gi in g.mig.gpu_instances:
                    prof = str(gi.profile)
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
