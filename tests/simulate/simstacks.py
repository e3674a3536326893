"""Small stacks and workloads the simulator's tests build by hand (a helper, not collected)."""

from __future__ import annotations

from gpupool.model import Stack
from gpupool.simulate.jobs import Job, Workload
from tests.stacks import load_stack_text


def lab(pools: str, *, scheduler: str = "default", tenants: str = "",
        admission: str = "deny") -> Stack:
    """A stack of existing nodes (no autoscaler) with the given pool and tenant YAML lines."""
    text = (
        "apiVersion: gpupool.io/v1\nkind: GpuPoolStack\nmetadata: {name: lab}\n"
        "provider: {cloud: kubernetes, settings: {context: lab}}\n"
        f"cluster: {{scheduler: {scheduler}, admission: {{action: '{admission}'}}}}\n"
        f"pools:\n{pools}"
    )
    if tenants:
        text += f"tenants:\n{tenants}"
    return load_stack_text(text)


def workload(*jobs: Job) -> Workload:
    """A workload of the given jobs, sorted by submit time as the readers sort them."""
    return Workload("test.csv", tuple(sorted(jobs, key=lambda j: j.submit)))


def job(name: str, submit: float = 0.0, duration: float = 3600.0, **kw: object) -> Job:
    """A job with its line number taken from its name's digits (1 when none)."""
    digits = "".join(c for c in name if c.isdigit())
    return Job(name=name, line=int(digits or 1) + 1, submit=submit, duration=duration,
               **kw)  # type: ignore[arg-type]
