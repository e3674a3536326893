"""Advice that saves money: host memory against the workload's band, spot, idle floors.

This module owns the advice family, diagnostics of severity ``info`` (they never fail
validation), and the ``Advice`` values the plan shows with their money effect. Every item is
priced from the catalog in USD; nothing is advised from a price the catalog does not know, or
has in another currency (a refreshed Volcengine price is CNY, and nothing converts it).

- **Host memory band per workload** (host RAM : GPU memory): training 2 to 4, inference 1 to 2,
  mixed 1 to 4 (training feeds GPUs from host buffers and checkpoints through host RAM;
  inference needs pinned buffers and a model copy). Below the band of training or inference is
  the warning ``gpu.memory-ratio`` (``gpupool.spec.checks.gpus``), which names
  ``better_instance`` when there is one; below the band of ``mixed`` (the default workload, which
  states no need) is ``advice.host-memory-low``, with what the better type costs more. Above the
  band, ``advice.host-memory-high`` names the cheapest instance type with the same whole GPU
  model and count whose ratio is inside the band, with what it saves.
- ``advice.spot-saving``: an on-demand inference pool whose instance type has a known, lower
  spot price, with the saving at nodes.min and nodes.max (inference replicas restart elsewhere;
  training jobs are left alone, since a reclaim costs them their progress).
- ``advice.idle-floor``: a training pool whose ``nodes.min`` keeps GPUs running between jobs,
  with what that floor costs a month (inference pools keep a floor to serve).

``better_instance`` never proposes a fractional-GPU size for whole GPUs, a different GPU model
or count, or a type of another cloud.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpupool import catalog
from gpupool.catalog import HOURS_PER_MONTH, InstanceType
from gpupool.model import Pool, Stack
from gpupool.spec.diagnostics import Diagnostic, Path, info

#: Host RAM per GiB of GPU memory that each workload wants: (lowest, highest).
BANDS: dict[str, tuple[float, float]] = {
    "training": (2.0, 4.0),
    "inference": (1.0, 2.0),
    "mixed": (1.0, 4.0),
}


@dataclass(frozen=True)
class Advice:
    """One piece of advice with its money effect.

    Attributes:
        pool: the pool it is about.
        diagnostic: the ``info`` diagnostic (code ``advice.<rule>``, summary, detail, the JSON
            path of the field to change).
        monthly: what following it saves a month, at nodes.min and nodes.max (USD; negative
            where it costs more, as ``advice.host-memory-low``; for ``advice.idle-floor``, what
            the floor costs).

    """

    pool: str
    diagnostic: Diagnostic
    monthly: tuple[float, float]

    @property
    def code(self) -> str:
        """The diagnostic code."""
        return self.diagnostic.code

    @property
    def summary(self) -> str:
        """One line."""
        return self.diagnostic.summary

    @property
    def detail(self) -> str:
        """What to do, with the numbers."""
        return self.diagnostic.detail

    @property
    def path(self) -> Path:
        """The JSON path of the field to change."""
        return self.diagnostic.path


def host_ratio(inst: InstanceType) -> float:
    """Host RAM per GiB of GPU memory of an instance type."""
    return inst.memory_gib / inst.total_gpu_memory_gib


def better_instance(stack: Stack, pool: Pool) -> InstanceType | None:
    """Return the cheapest instance type with the pool's whole GPUs inside its workload's band.

    Same cloud, same GPU model, same number of whole GPUs, a known on-demand price, host RAM
    inside the band; None when there is none, or the pool's own type is the cheapest such.
    """
    inst, band = pool.instance, BANDS.get(pool.workload)
    if inst is None or band is None or inst.gpu_fraction < 1.0:
        return None
    fits = [
        i for i in catalog.instances(stack.provider.cloud, gpu=inst.gpu)
        if i.gpu_count == inst.gpu_count and i.gpu_fraction >= 1.0
        and _usd_prices(i)[0] is not None and band[0] <= host_ratio(i) <= band[1]
    ]  # fmt: skip
    if not fits:
        return None
    best = min(fits, key=lambda i: (_usd_prices(i)[0] or 0.0, i.name))
    return None if best.name == inst.name else best


def _usd_prices(inst: InstanceType) -> tuple[float | None, float | None]:
    """Return the on-demand and spot prices in USD; unknown where the catalog has another."""
    if inst.price.currency != "USD":
        return None, None
    return inst.price.on_demand_hourly, inst.price.spot_hourly


def _hourly(inst: InstanceType, spot: bool) -> float | None:
    od, spot_price = _usd_prices(inst)
    return spot_price if spot else od


def _month(per_node_hour: float, pool: Pool) -> tuple[float, float]:
    return (per_node_hour * pool.nodes.min * HOURS_PER_MONTH,
            per_node_hour * pool.nodes.max * HOURS_PER_MONTH)


def _usd(amounts: tuple[float, float]) -> str:
    lo, hi = (f"${round(v):,}" for v in amounts)
    return lo if lo == hi else f"{lo} to {hi}"


def _host_memory_high(stack: Stack, pool: Pool) -> list[Advice]:
    inst, band = pool.instance, BANDS.get(pool.workload)
    if inst is None or band is None or inst.gpu_fraction < 1.0 or host_ratio(inst) <= band[1]:
        return []
    better = better_instance(stack, pool)
    spot = pool.capacity.type == "spot"
    now = _hourly(inst, spot)
    then = _hourly(better, spot) if better is not None else None
    if better is None or now is None or then is None or then >= now:
        return []
    saving = _month(now - then, pool)
    return [Advice(
        pool.name,
        info(
            "advice.host-memory-high",
            f"More host memory than {pool.workload} needs",
            f"{inst.name} has {inst.memory_gib:g} GiB host RAM for "
            f"{inst.total_gpu_memory_gib:g} GiB of GPU memory, a ratio of {host_ratio(inst):.2f}; "
            f"{pool.workload} wants {band[0]:g} to {band[1]:g}. {better.name} has the same "
            f"{inst.gpu_count} x {inst.gpu} "
            f"with {better.memory_gib:g} GiB ({host_ratio(better):.2f}) and saves {_usd(saving)} a "
            "month at nodes.min to nodes.max.",
            (*pool.path, "instanceType"),
        ),
        saving,
    )]


def _host_memory_low(stack: Stack, pool: Pool) -> list[Advice]:
    """Advise a type inside the band for a ``mixed`` pool below it, with what it costs more."""
    inst, band = pool.instance, BANDS["mixed"]
    if inst is None or pool.workload != "mixed" or inst.gpu_fraction < 1.0:
        return []
    if host_ratio(inst) >= band[0]:
        return []
    better = better_instance(stack, pool)
    spot = pool.capacity.type == "spot"
    now = _hourly(inst, spot)
    then = _hourly(better, spot) if better is not None else None
    if better is None or now is None or then is None:
        return []
    effect = _month(now - then, pool)
    return [Advice(
        pool.name,
        info(
            "advice.host-memory-low",
            "Host memory may be low for mixed workloads",
            f"{inst.name} has {inst.memory_gib:g} GiB host RAM for "
            f"{inst.total_gpu_memory_gib:g} GiB of GPU memory, a ratio of "
            f"{host_ratio(inst):.2f}, below the {band[0]:g} that inference "
            f"needs and far below training's {BANDS['training'][0]:g}. {better.name} has the same "
            f"{inst.gpu_count} x {inst.gpu} with {better.memory_gib:g} GiB and costs "
            f"{_usd((-effect[0], -effect[1]))} more a month at nodes.min to nodes.max; say "
            "workload: inference or training to have it checked.",
            (*pool.path, "instanceType"),
        ),
        effect,
    )]


def _spot_saving(pool: Pool) -> list[Advice]:
    inst = pool.instance
    if inst is None or pool.workload != "inference" or pool.capacity.type != "on-demand":
        return []
    od, spot = _usd_prices(inst)
    if od is None or spot is None or spot >= od:
        return []
    saving = _month(od - spot, pool)
    return [Advice(
        pool.name,
        info(
            "advice.spot-saving",
            "Spot would cost less for this inference pool",
            f"{inst.name} costs ${od:.4g} an hour on demand and ${spot:.4g} on spot "
            f"({100 * (1 - spot / od):.0f}% less): {_usd(saving)} a month at nodes.min to "
            "nodes.max. Inference replicas restart on other nodes; capacity.type: spot with "
            "onDemandBase keeps a floor that is never reclaimed.",
            (*pool.path, "capacity"),
        ),
        saving,
    )]


def _idle_floor(pool: Pool) -> list[Advice]:
    inst = pool.instance
    if inst is None or pool.workload != "training" or pool.nodes.min == 0:
        return []
    price = _hourly(inst, pool.capacity.type == "spot")
    if price is None:
        return []
    floor = price * pool.nodes.min * HOURS_PER_MONTH
    return [Advice(
        pool.name,
        info(
            "advice.idle-floor",
            f"nodes.min keeps {pool.nodes.min} training node{'s' * (pool.nodes.min != 1)} running",
            f"{pool.nodes.min} x {inst.name} cost {_usd((floor, floor))} a month while no job "
            "runs; "
            "with nodes.min: 0 the cluster autoscaler adds nodes when a job is pending (the first "
            "job waits for a node to start).",
            (*pool.path, "nodes", "min"),
        ),
        (floor, floor),
    )]


def advice(stack: Stack) -> list[Advice]:
    """Return every piece of advice for a stack, pool by pool in file order."""
    out: list[Advice] = []
    for pool in stack.pools:
        out += _host_memory_low(stack, pool) + _host_memory_high(stack, pool)
        out += _spot_saving(pool) + _idle_floor(pool)
    return out


def run(stack: Stack) -> list[Diagnostic]:
    """Return the advice as ``info`` diagnostics."""
    return [a.diagnostic for a in advice(stack)]
