"""The stack's ``acknowledge`` list (docs/stack-file.md, acknowledge) and ``--quiet``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpupool.cli import run
from gpupool.spec.acknowledge import ADVICE_CODES, WARNING_CODES
from gpupool.spec.validate import validate_text
from tests.paths import FIXTURES
from tests.test_diagnostic_codes import scan_source

ACKED = FIXTURES / "valid" / "acknowledge-warnings.yaml"
NOT_A_WARNING = FIXTURES / "invalid" / "acknowledge-not-a-warning.yaml"

STACK = """\
apiVersion: gpupool.io/v1
kind: GpuPoolStack
metadata: {name: t, environment: production}
provider:
  cloud: aws
  region: us-east-1
  cluster: c
  settings: {subnetIds: [s-1], nodeRoleArn: "arn:aws:iam::123456789012:role/n"}
pools:
  - name: batch
    instanceType: g6.2xlarge
    nodes: {min: 0, max: 2}
    capacity: {type: spot}
  - name: serve
    instanceType: g6.2xlarge
    nodes: {min: 0, max: 2}
    capacity: {type: spot}
"""
CODE = "spot.all-spot-production"


def _acked(entries: str) -> str:
    return STACK + "acknowledge:\n" + entries


def _codes(text: str) -> list[tuple[str, str]]:
    """(code, pool or section) of each diagnostic still shown for ``text``."""
    result = validate_text(text, "s.yaml")
    return [(d.code, str(d.path[1]) if d.path[0] == "pools" else str(d.path[0]))
            for d in result.diagnostics if d.severity.value != "info"]


def test_the_acknowledgeable_codes_are_the_warnings_the_source_builds() -> None:
    """WARNING_CODES is every code built with ``warning(...)`` but the list's own; ADVICE_CODES
    every code built with ``info(...)`` (so a new warning can be acknowledged at once). A
    workload's warnings (``workload.*``) are about the workload file, not the stack, so the
    stack's list does not take them."""
    built = scan_source().builders
    own = ("acknowledge.", "workload.")
    warnings = {c for c, b in built.items() if "warning" in b and not c.startswith(own)}
    assert warnings == WARNING_CODES
    assert {c for c, b in built.items() if "info" in b} == ADVICE_CODES
    assert not WARNING_CODES & ADVICE_CODES


def test_without_a_path_every_warning_of_the_code_is_acknowledged() -> None:
    """Both pools' all-spot warnings leave the diagnostics; each is kept with the reason."""
    assert _codes(STACK) == [(CODE, "0"), (CODE, "1")]
    text = _acked(f"  - code: {CODE}\n    reason: both pools retry\n")
    result = validate_text(text, "s.yaml")
    assert [d for d in result.diagnostics if d.severity.value == "warning"] == []
    assert [(a.diagnostic.path[:2], a.reason) for a in result.acknowledged] == [
        (("pools", 0), "both pools retry"), (("pools", 1), "both pools retry")]
    assert result.valid


@pytest.mark.parametrize(("path", "left"), [
    ("pools.batch", [(CODE, "1")]),                     # a pool, by its name
    ("pools.serve.capacity", [(CODE, "0")]),            # a field of a pool
    ("pools.serve.capacity.type", [(CODE, "0")]),       # the very field the warning is on
])
def test_a_path_scopes_the_acknowledgement(path: str, left: list[tuple[str, str]]) -> None:
    """Only the warnings at or under the path are acknowledged."""
    assert _codes(_acked(f"  - code: {CODE}\n    reason: r\n    path: {path}\n")) == left


def test_a_path_that_names_nothing_leaves_the_warnings_and_is_unused() -> None:
    """A misspelt pool name acknowledges nothing, and the entry says it is unused."""
    text = _acked(f"  - code: {CODE}\n    reason: r\n    path: pools.bacth\n")
    assert _codes(text) == [(CODE, "0"), (CODE, "1"), ("acknowledge.unused", "acknowledge")]
    (unused,) = [d for d in validate_text(text, "s.yaml").diagnostics
                 if d.code == "acknowledge.unused"]
    assert unused.severity.value == "warning"
    assert unused.summary == f"acknowledge: no {CODE} warning at pools.bacth is left"
    assert unused.range is not None and unused.range.start.line == 19


def test_an_entry_whose_warning_is_fixed_is_an_unused_warning_not_an_error() -> None:
    """The pools got an on-demand base: the entry is stale, a warning (the file stays valid)."""
    fixed = STACK.replace("capacity: {type: spot}", "capacity: {type: spot, onDemandBase: 1}")
    result = validate_text(fixed + f"acknowledge:\n  - code: {CODE}\n    reason: r\n", "s.yaml")
    assert [(d.code, d.severity.value) for d in result.diagnostics
            if d.severity.value != "info"] == [("acknowledge.unused", "warning")]
    assert result.valid and result.acknowledged == ()


def test_the_not_a_warning_error_says_which_kind_of_code_it_is() -> None:
    """An error of the file, advice, or a misspelling (with the nearest warning code)."""
    result = validate_text(NOT_A_WARNING.read_text(encoding="utf-8"), "f.yaml")
    details = [d.detail for d in result.diagnostics if d.code == "acknowledge.not-a-warning"]
    assert [d.split(":")[0].split(" is ")[0] for d in details] == [
        "catalog.unknown-instance-type", "advice.idle-floor", "gpupool gives no warning "
        "spot.all-spot-productoin. Did you mean"]
    assert "an error cannot be acknowledged, only fixed" in details[0]
    assert "is advice, which never fails validation" in details[1]
    assert f"Did you mean: {CODE}?" in details[2]
    assert not result.valid


def test_schema_errors_elsewhere_leave_the_list_applied_but_unused_entries_unjudged() -> None:
    """A schema error in a pool sets its checks aside, so an entry whose warning it hid is not
    called unused; the other pool's warning is still acknowledged."""
    text = _acked(f"  - code: {CODE}\n    reason: r\n").replace(
        "  - name: serve\n", "  - name: serve\n    colour: blue\n")
    result = validate_text(text, "s.yaml")
    assert [d.code for d in result.diagnostics] == ["schema.unknown-key"]
    assert [a.diagnostic.path[:2] for a in result.acknowledged] == [("pools", 0)]


def test_a_schema_error_in_the_list_applies_none_of_it_and_hides_no_other_check() -> None:
    """A broken entry: nothing is acknowledged, and the checks still run on the rest."""
    text = _acked(f"  - code: {CODE}\n")  # no reason
    result = validate_text(text, "s.yaml")
    assert [(d.code, d.path[:2]) for d in result.diagnostics if d.severity.value != "info"] == [
        (CODE, ("pools", 0)), (CODE, ("pools", 1)), ("schema.required", ("acknowledge", 0))]
    assert result.acknowledged == ()


def test_validate_counts_acknowledged_warnings_and_lists_them_with_the_reason_in_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Text: not printed, counted on the summary line. JSON: under ``acknowledged``."""
    assert run(["validate", str(ACKED)]) == 0
    cap = capsys.readouterr()
    assert cap.out == f"{ACKED}: valid (2 warnings, 1 warning acknowledged)\n"
    assert cap.err.count(f"[{CODE}]") == 1  # the serve pool's; batch's is acknowledged
    assert run(["validate", "--format", "json", str(ACKED)]) == 0
    doc = json.loads(capsys.readouterr().out)
    (acked,) = doc["acknowledged"]
    assert (acked["code"], acked["path"][:2], acked["range"]["start"]["line"]) == (
        CODE, ["pools", 0], 15)
    assert acked["reason"] == "batch inference; a lost node's requests are retried by the queue"
    assert CODE in {d["code"] for d in doc["diagnostics"]}  # the serve pool's, not acknowledged


def test_plan_json_lists_the_acknowledged_warnings(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    """The plan document carries them too, with their reasons; the plan text prints none."""
    stack = tmp_path / "s.yaml"
    stack.write_text(_acked(f"  - code: {CODE}\n    reason: both retry\n"), encoding="utf-8")
    assert run(["plan", "--format", "json", str(stack)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(a["code"], a["path"][:2], a["reason"]) for a in doc["acknowledged"]] == [
        (CODE, ["pools", 0], "both retry"), (CODE, ["pools", 1], "both retry")]
    assert run(["plan", str(stack)]) == 0
    assert ": warning: " not in capsys.readouterr().err


@pytest.mark.parametrize("command", [
    ["validate"], ["plan"], ["plan", "--format", "json"], ["render", "--out", "{tmp}/out"],
])
def test_quiet_leaves_warnings_and_advice_out_and_changes_no_exit_code(
    command: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    """Without --quiet the warnings print on stderr; with it they do not, the exit is the same."""
    stack = tmp_path / "s.yaml"
    stack.write_text(STACK, encoding="utf-8")
    argv = [w.replace("{tmp}", str(tmp_path)) for w in command]
    loud = run([*argv, str(stack)])
    assert f"[{CODE}]" in capsys.readouterr().err
    quiet = run([*argv, "--quiet", str(stack)])
    cap = capsys.readouterr()
    assert quiet == loud == 0
    assert ": warning: " not in cap.err and ": info: " not in cap.err


def test_quiet_still_prints_errors_and_validate_json_keeps_only_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An invalid file under -q: its errors on stderr and in JSON, exit 1 as without -q."""
    assert run(["validate", "-q", str(NOT_A_WARNING)]) == 1
    cap = capsys.readouterr()
    assert cap.err.count(": error: ") == 4 and ": warning: " not in cap.err
    assert run(["validate", "-q", "--format", "json", str(ACKED)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["diagnostics"] == [] and doc["acknowledged"] == []
    assert run(["plan", "-q", str(NOT_A_WARNING)]) == 1
    assert "error: acknowledge: advice.idle-floor" in capsys.readouterr().err


def test_quiet_leaves_validates_advice_out_too(capsys: pytest.CaptureFixture[str]) -> None:
    """Advice (``info``) is what validate prints beside warnings; -q leaves it out as well."""
    advice = FIXTURES / "valid" / "advice-money.yaml"
    assert run(["validate", str(advice)]) == 0
    assert ": info: " in capsys.readouterr().err
    assert run(["validate", "--quiet", str(advice)]) == 0
    cap = capsys.readouterr()
    assert (cap.out, cap.err) == (f"{advice}: valid\n", "")
