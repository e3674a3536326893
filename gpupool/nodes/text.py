"""The node report as text for people: one block per GPU, faults last.

Owns the text ``gpupool node inspect`` prints without ``--format json``. The JSON shape is
``gpupool.nodes.report``'s.
"""

from __future__ import annotations

from gpupool.nodes.report import GpuReport, MigState, NodeReport


def format_text(report: NodeReport) -> str:
    """Render a report for people, one block per GPU, faults last.

    Args:
        report: The node report.

    Returns:
        Text ending in a newline.

    """
    lines = [
        f"Node {report.hostname}: {len(report.gpus)} GPU(s), "
        f"driver {_show(report.driver_version)}, CUDA {_show(report.cuda_driver_version)}, "
        f"NVML {_show(report.nvml_version)}"
    ]
    for gpu in report.gpus:
        lines.append("")
        lines.extend(_gpu_lines(gpu))
    lines.append("")
    faults = report.faults
    if not faults:
        lines.append("Faults: none")
    else:
        lines.append(f"Faults: {len(faults)}")
        lines.extend(f"  ! GPU {f.gpu} {f.kind}: {f.detail}" for f in faults)
    return "\n".join(lines) + "\n"


def _gpu_lines(gpu: GpuReport) -> list[str]:
    if gpu.error is not None:
        return [f"GPU {gpu.index}  unreachable: {gpu.error}"]
    lines = [f"GPU {gpu.index}  {_show(gpu.name)}  {_show(gpu.uuid)}"]
    lines.append(
        f"  memory       {_show(gpu.memory_used_mib)} / {_show(gpu.memory_total_mib)} MiB used"
    )
    lines.append(f"  compute      {_show(gpu.compute_capability)}")
    lines.append(f"  MIG          {_mig_summary(gpu.mig)}")
    for gi in gpu.mig.gpu_instances:
        lines.append(f"    GI {_show(gi.id)}  {_show(gi.profile)}  {_show(gi.memory_mib)} MiB")
        for ci in gi.compute_instances:
            lines.append(
                f"      CI {_show(ci.id)}  {_show(ci.profile)}  {_show(ci.uuid)}  "
                f"{_show(ci.memory_used_mib)} / {_show(ci.memory_total_mib)} MiB used"
            )
    lines.append(
        f"  ECC          {_show(gpu.ecc_mode)}; uncorrected {_count(gpu.ecc_volatile.uncorrected)} "
        f"volatile / {_count(gpu.ecc_aggregate.uncorrected)} aggregate; corrected "
        f"{_count(gpu.ecc_volatile.corrected)} volatile / {_count(gpu.ecc_aggregate.corrected)} "
        "aggregate"
    )
    lines.append(
        f"  temperature  {_unit(gpu.temperature_c, 'C')} (slowdown {_unit(gpu.slowdown_c, 'C')}, "
        f"shutdown {_unit(gpu.shutdown_c, 'C')})"
    )
    lines.append(
        f"  power        {_unit(gpu.power_draw_w, 'W')} of {_unit(gpu.power_limit_w, 'W')} limit"
    )
    lines.append(f"  persistence  {_show(gpu.persistence_mode)}")
    return lines


def _mig_summary(mig: MigState) -> str:
    if mig.supported is False:
        return "not supported"
    if mig.supported is None:
        return "n/a"
    text = f"{mig.current}"
    if mig.pending != mig.current:
        text += f" (pending {mig.pending}: takes effect after a GPU reset)"
    if mig.current == "enabled":
        text += f", {len(mig.gpu_instances)} GPU instance(s)"
    return text


# --------------------------------------------------------------------------- helpers


def _show(value: object) -> str:
    return "n/a" if value is None else str(value)


def _count(value: int | None) -> str:
    return "n/a" if value is None else str(value)


def _unit(value: float | None, unit: str) -> str:
    return "n/a" if value is None else f"{value} {unit}"
