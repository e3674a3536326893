"""Rules on the GPU scheduler's availability in production (``cluster.schedulerHighAvailability``).

KAI and HAMi place every GPU pod that names them; while their scheduler is down, no such pod is
placed. ``scheduler.single-replica``: a production stack turns high availability off, so one
drain, spot interruption or node failure stops GPU scheduling. ``scheduler.on-spot``: a
production stack's scheduler may land on its spot nodes, which the cloud takes back at short
notice: without high availability nothing keeps it off them; with it, KAI's node affinity does,
but HAMi's chart takes no affinity and only a taint on the spot pool keeps it off
(``gpupool.sharing.scheduler_ha``).
"""

from __future__ import annotations

from gpupool import facts, schedulers
from gpupool.model import Stack
from gpupool.spec.diagnostics import Diagnostic, warning

_PATH = ("cluster", "schedulerHighAvailability")


def run(stack: Stack) -> list[Diagnostic]:
    """Warn when a production stack's KAI or HAMi scheduler is one replica or may run on spot."""
    name = stack.cluster.scheduler
    if stack.environment != "production" or not schedulers.of(stack).installs:
        return []
    ha = stack.cluster.scheduler_ha
    path = _PATH if stack.cluster.scheduler_ha_stated else ("cluster", "scheduler")
    out: list[Diagnostic] = []
    if not ha:
        out.append(
            warning(
                "scheduler.single-replica",
                f"The {name} scheduler of a production stack runs one replica",
                "While its one pod is down (a drain, a spot interruption, a node failure) no GPU "
                "pod is placed. Remove schedulerHighAvailability: false (production defaults "
                "to two leader-elected replicas spread over nodes, off spot nodes).",
                path,
            )
        )
    kept_off = ha and schedulers.of(stack).ha_keeps_off_spot
    spots = [] if kept_off else [p.name for p in facts.open_spot_pools(stack)]
    if spots:
        why = (
            "HAMi's chart takes no node affinity, so only a taint keeps it off them"
            if ha
            else "nothing keeps it off them without high availability"
        )
        out.append(
            warning(
                "scheduler.on-spot",
                f"The {name} scheduler may run on spot nodes",
                f"Spot pools {', '.join(spots)} take pods that tolerate nothing, and {why}; "
                "the cloud reclaims a spot node at short notice. Give those pools a NoSchedule "
                "taint (pools[].taints)"
                + ("." if ha else ", or turn schedulerHighAvailability on (KAI keeps off spot)."),
                path,
            )
        )
    return out
