"""The ``tenant-quota`` rule: a tenant quota nearer the GPUs its tenant requests, both ways.

A tenant whose p95 requested GPUs is under ``LOW_SHARE`` of its quota gets the p95 with
``HEADROOM``, rounded up; one whose p95 is above its quota gets the p95. No quota is raised past
the tenant's limit. Requests above what a quota can hold (``MAX_QUOTA_GPUS``) are a gap, not a
quota.
"""

from __future__ import annotations

import math
from typing import ClassVar

from gpupool.advise.recommendation import Recommendation
from gpupool.advise.rule import Case, Findings, Rule, Scope

HEADROOM = 1.25  # the p95 times this, rounded up: the lowered quota
LOW_SHARE = 0.5  # a p95 under this share of the quota: the quota is lowered
# the most GPUs a quota can hold (the schema's tenants[].quota.gpus maximum): requests beyond it
# are no use a stack could be sized for, so no quota is proposed from them
MAX_QUOTA_GPUS = 100_000


class TenantQuota(Rule):
    """A tenant quota nearer its use, both ways."""

    id: ClassVar[str] = "tenant-quota"
    kind: ClassVar[str] = "tenant-quota"
    scope: ClassVar[Scope] = Scope.STACK
    summary: ClassVar[str] = (
        "a tenant's p95 requested GPUs under half its quota, or above it: the p95 x 1.25 "
        "rounded up, or the p95"
    )
    edits: ClassVar[str] = "tenants[i].quota.gpus"
    saving: ClassVar[str] = "none stated"

    def judge(self, case: Case) -> Findings:
        """Propose a quota nearer its use for each tenant whose quota is far from it."""
        ev = case.evidence
        out: list[Recommendation] = []
        gaps: list[str] = []
        for i, tenant in enumerate(case.stack.tenants):
            use = ev.tenants.get(tenant.name)
            quota = tenant.quota_gpus
            if use is None or quota is None or quota <= 0:
                continue
            if use.gpus_max > MAX_QUOTA_GPUS:
                gaps.append(
                    f"tenant {tenant.name}: its pods requested {use.gpus_max:.3g} GPUs at most, "
                    f"more than a quota can hold ({MAX_QUOTA_GPUS:,}): the series is wrong, not "
                    "judged"
                )
                continue
            target = math.ceil(use.gpus_p95 * HEADROOM) if use.gpus_p95 > 0 else 0
            if use.gpus_p95 < LOW_SHARE * quota and target < quota:
                new, why = target, "uses under half of it"
            elif use.gpus_p95 > quota:
                new, why = math.ceil(use.gpus_p95), "runs above it most of the time"
            else:
                continue
            if tenant.limit_gpus is not None and new > tenant.limit_gpus:
                continue
            out.append(Recommendation(
                kind=self.kind,
                pool=None,
                tenant=tenant.name,
                path=("tenants", i, "quota", "gpus"),
                value=new,
                summary=(
                    f"tenant {tenant.name}: quota {quota:g} GPUs, requests {use.gpus_p95:g} "
                    f"(p95, max {use.gpus_max:g}): it {why}; quota -> {new}"
                ),
                saving_per_month=None,
                evidence={
                    "window_hours": round(ev.window_seconds / 3600, 1),
                    "requested_gpus_p95": use.gpus_p95,
                    "requested_gpus_max": use.gpus_max,
                    "resolution": f"{use.resolution_seconds / 60:g}m",
                },
            ))
        return Findings(recommendations=tuple(out), gaps=tuple(gaps))
