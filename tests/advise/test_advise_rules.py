"""Advise's rules as a registry (issue 36, item 4): one shape, one walk, and the docs from it.

Refresh the committed table in docs/commands.md after a rule changes with
``GPUPOOL_UPDATE_GOLDEN=1 python -m pytest tests/advise/test_advise_rules.py``, then review the
diff.
"""

from __future__ import annotations

import json
import os
from typing import ClassVar

import pytest

from gpupool.advise import rules
from gpupool.advise.evidence import Evidence, GpuUse, PoolUse
from gpupool.advise.recommendation import Recommendation
from gpupool.advise.rule import Case, Findings, Rule, Scope
from gpupool.cli import run
from gpupool.model import Stack
from gpupool.spec.validate import validate_text
from gpupool.usecases import advise
from gpupool.views import advise_rules as view
from tests.advise.scenario import DAY, stack_head
from tests.paths import ROOT

DOC = ROOT / "docs" / "commands.md"


def test_committed_rules_table_is_what_the_registry_generates() -> None:
    """docs/commands.md's advise rules table is exactly `advise --list-rules --format markdown`."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(view.BEGIN)
    end = text.index(view.END) + len(view.END) + 1
    generated = view.format_markdown(rules.RULES)
    if os.environ.get("GPUPOOL_UPDATE_GOLDEN") == "1":
        DOC.write_text(text[:start] + generated + text[end:], encoding="utf-8")
        return
    assert text[start:end] == generated, (
        "docs/commands.md's advise rules table is stale: refresh it with "
        "GPUPOOL_UPDATE_GOLDEN=1 python -m pytest tests/advise/test_advise_rules.py"
    )


def test_every_rule_has_a_stable_unique_id_and_a_one_line_summary() -> None:
    ids = [r.id for r in rules.RULES]
    assert len(ids) == len(set(ids)) == 9 + 4  # the pools' and tenants', the services' four
    for r in rules.RULES:
        assert r.id and r.kind and r.edits and r.saving
        assert r.summary and "\n" not in r.summary and "|" not in r.summary
        assert r.edits.startswith(("pools[i].", "tenants[i].", "services[i]."))
    # the two slot rules share their recommendations' kind, as do the two replicas rules
    kinds = [r.kind for r in rules.RULES]
    assert sorted(k for k in kinds if kinds.count(k) > 1) == [
        "grow-slots", "grow-slots", "service-replicas", "service-replicas"]


def test_list_rules_prints_the_registry_in_text_json_and_markdown(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(["advise", "--list-rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == [r.id for r in rules.RULES]
    assert all(line.endswith(r.summary) for line, r in zip(lines, rules.RULES, strict=True))
    assert run(["advise", "--list-rules", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format_version"] == "1"
    assert [(r["id"], r["kind"], r["scope"]) for r in doc["rules"]] == [
        (r.id, r.kind, r.scope.value) for r in rules.RULES]
    assert run(["advise", "--list-rules", "--format", "markdown"]) == 0
    assert capsys.readouterr().out == view.format_markdown(rules.RULES)


@pytest.mark.parametrize("extra", [["stack.yaml"], ["--prometheus", "http://x"], ["--demo"]])
def test_list_rules_reads_nothing_and_says_so(
    extra: list[str], capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(["advise", "--list-rules", *extra]) == 64
    err = capsys.readouterr().err
    assert err.startswith("gpupool advise --list-rules prints the rules and reads nothing: drop ")
    assert "Traceback" not in err


class _Marker(Rule):
    """A rule registered by the test: proposes nothing of its own, says it saw the pool."""

    id: ClassVar[str] = "test-marker"
    kind: ClassVar[str] = "test-marker"
    scope: ClassVar[Scope] = Scope.POOL_USE
    summary: ClassVar[str] = "says which pools it judged"
    edits: ClassVar[str] = "pools[i].name"
    saving: ClassVar[str] = "none"

    def judge(self, case: Case) -> Findings:
        rec = Recommendation(kind=self.kind, pool=case.pool.name, tenant=None,
                             path=("pools", case.at, "name"), value=case.pool.name,
                             summary="seen", saving_per_month=None)
        return Findings((rec,), (f"marker saw {case.pool.name}",))


def _two_pools() -> Stack:
    text = stack_head("advise-rules") + """\
  - {name: a, instanceType: g6.2xlarge, workload: inference, nodes: {min: 1, max: 2}}
  - {name: b, instanceType: g6.2xlarge, workload: inference, nodes: {min: 1, max: 2}}
"""
    checked = validate_text(text, "stack.yaml")
    assert checked.stack is not None, [d.summary for d in checked.diagnostics]
    return checked.stack


def _use(pool: str, samples: int) -> PoolUse:
    gpu = GpuUse(node=f"{pool}-1", gpu="0", profile=None, memory_p99_mib=20000.0,
                 memory_max_mib=20000.0, samples=samples, activity_p95=0.9,
                 activity_metric="DCGM_FI_PROF_GR_ENGINE_ACTIVE")
    return PoolUse(pool, (gpu,), ((1, 0),) * (14 * 24))


def test_a_rule_in_the_registry_is_walked_on_every_judged_pool_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Adding a rule is its class and one line in the registry: the use case walks it, on each
    pool the guard lets through (b has too few samples: the guard's gap, and no rule judges
    it), and the findings come back as values, not through a shared list."""
    monkeypatch.setattr(rules, "RULES", (*rules.RULES, _Marker()))
    ev = Evidence(window_seconds=14 * DAY, end=0.0,
                  pools={"a": _use("a", 5000), "b": _use("b", 10)}, tenants={})
    found, gaps = advise._propose(_two_pools(), ev, {"a": 1.0, "b": 1.0})
    assert [(r.kind, r.pool) for r in found] == [("test-marker", "a")]
    held = ("pool b: too little data to judge (10 memory samples over 336 h; at least 1000 "
            "samples and 24 h are needed)")
    # a's gaps from the registry's rules, the marker's last of them (it is registered last),
    # then b's guard
    assert gaps[-2:] == ["marker saw a", held]
    assert all(g.startswith("pool a: ") for g in gaps[:-2])
