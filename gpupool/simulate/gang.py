"""What a run is given beyond the stack and workload, and one job as it goes through the run.

This module owns ``Settings`` (the seed and the knobs a run may vary), ``Gang`` (a job of the
workload with its state, its queue and where its pods run) and the names of a gang's states and
of the reasons it waits, which the report reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpupool.simulate import autoscaler
from gpupool.simulate.demand import Demand
from gpupool.simulate.jobs import Job
from gpupool.simulate.placement import Node
from gpupool.simulate.tenancy import TenantState

PENDING, RUNNING, DONE, REJECTED, NEVER = "pending", "running", "done", "rejected", "never"
GAVE_UP_STATE = "gave up"
FRAGMENTATION = "fragmentation"
CAPACITY = "waiting for capacity"
GIVE_UP_FACTOR = 10
"""A job interrupted later than this many times its duration after its first start is not
resubmitted: at high interruption rates a long job would otherwise restart without end."""
GAVE_UP = (f"given up: still interrupted {GIVE_UP_FACTOR}x its duration after its first start "
           "(not resubmitted)")
CLOCK_EVERY = 64  # instants of the run between two calls of its clock (progress)


@dataclass(frozen=True)
class Settings:
    """What a run may vary beyond the stack and workload.

    Attributes:
        seed: seeds the spot interruptions (the only randomness).
        spot_interruptions_per_hour: interruptions per spot node and hour.
        scale_up_seconds: from a scale-up request to a ready node (None: ``SCALE_UP_SECONDS``).
        scale_down_seconds: how long a node stays empty before it goes.
        spot_shortage: the chance that a spot node asked for is one the cloud cannot fill
            (0 to 1; drawn from its own seeded stream, so the interruptions stay the same).

    """

    seed: int = 0
    spot_interruptions_per_hour: float = 0.0
    scale_up_seconds: float | None = None
    scale_down_seconds: float = autoscaler.SCALE_DOWN_UNNEEDED_SECONDS
    spot_shortage: float = 0.0


@dataclass(slots=True)
class Gang:
    """One job of the workload as it goes through the run."""

    id: int
    job: Job
    level: str
    priority: int
    tenant: TenantState | None
    options: list[Demand] = field(default_factory=list)  # shared by the gangs of one shape
    state: str = PENDING
    reason: str = ""
    queued_at: float = 0.0
    started_at: float | None = None
    first_start: float | None = None
    placed: list[tuple[Node, int]] | tuple[()] = ()
    preemptions: int = 0
    interruptions: int = 0
    gpu_seconds_lost: float = 0.0
    key: tuple[object, ...] = ()  # its queue: jobs of one shape, tenant and priority level
    queued: bool = False  # waiting in its queue
    last_nodes: tuple[str, ...] = ()  # where its pods last started: a node per entry (_place)
    last_devices: tuple[int, ...] = ()  # the GPUs its first pod last started on
    pools_used: frozenset[str] = frozenset()  # every pool its pods ever ran on

    @property
    def pods(self) -> int:
        """Pods in the gang."""
        return self.job.pods

