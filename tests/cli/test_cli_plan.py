"""``gpupool plan`` on the command line: exit codes, streams, and every kind of base."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from gpupool import record
from gpupool.assemble import build
from gpupool.cli import run
from tests.paths import EXAMPLES, FIXTURES
from tests.stacks import load_stack

CASES = FIXTURES / "plan"
INVALID = FIXTURES / "invalid" / "mig-layout-does-not-fit.yaml"

Capture = pytest.CaptureFixture[str]


def _case(case: str) -> tuple[str, str]:
    return str(CASES / case / "desired.yaml"), str(CASES / case / "base.yaml")


# ---------------------------------------------------------------------------- exit codes


def test_changes_exit_0_without_detailed_exitcode(capsys: Capture) -> None:
    """Without --detailed-exitcode a plan with changes exits 0."""
    desired, base = _case("nodes-max")
    assert run(["plan", desired, "--base", base]) == 0
    assert "Plan: 0 to add, 2 to change, 0 to destroy." in capsys.readouterr().out  # + quota


def test_detailed_exitcode_2_on_changes(capsys: Capture) -> None:
    """--detailed-exitcode exits 2 when something changes."""
    desired, base = _case("instance-type")
    assert run(["plan", desired, "--base", base, "--detailed-exitcode"]) == 2


def test_detailed_exitcode_0_without_changes(capsys: Capture) -> None:
    """--detailed-exitcode exits 0 when nothing changes, and the text says No changes."""
    desired, base = _case("no-changes")
    assert run(["plan", desired, "--base", base, "--detailed-exitcode"]) == 0
    assert "No changes." in capsys.readouterr().out


def test_invalid_stack_exits_1_with_diagnostics_on_stderr(capsys: Capture) -> None:
    """An invalid desired file prints validate's diagnostics on stderr, nothing on stdout."""
    assert run(["plan", str(INVALID), "--detailed-exitcode"]) == 1
    cap = capsys.readouterr()
    assert "error: MIG layout does not fit on A100-SXM4-80GB" in cap.err
    assert "invalid: 1 error" in cap.err
    assert cap.out == ""


def test_invalid_base_exits_1_and_says_it_is_the_base(capsys: Capture) -> None:
    """An invalid base file prints its diagnostics and one line naming it as the base."""
    desired, _ = _case("no-changes")
    assert run(["plan", desired, "--base", str(INVALID)]) == 1
    err = capsys.readouterr().err
    assert "MIG layout does not fit" in err
    assert f"error: the base file {INVALID} is invalid (1 error)" in err
    assert "--base" in err


def test_missing_file_exits_1(tmp_path: Path, capsys: Capture) -> None:
    """A stack file that does not exist is one error line."""
    assert run(["plan", str(tmp_path / "nope.yaml")]) == 1
    assert "no such file" in capsys.readouterr().err


def test_unknown_format_is_a_usage_error(capsys: Capture) -> None:
    """A bad --format exits 64."""
    desired, _ = _case("no-changes")
    assert run(["plan", desired, "--format", "yaml"]) == 64


# ------------------------------------------------------------------------------- streams


def test_json_on_stdout_notes_on_stderr(tmp_path: Path, capsys: Capture) -> None:
    """stdout is exactly one JSON document; how the base was chosen goes to stderr too."""
    desired = tmp_path / "stack.yaml"
    shutil.copy(CASES / "no-changes" / "desired.yaml", desired)
    assert run(["plan", str(desired), "--format", "json"]) == 0
    cap = capsys.readouterr()
    doc = json.loads(cap.out)
    assert doc["base"]["kind"] == "empty"
    assert doc["summary"]["add"] > 0 and doc["summary"]["destroy"] == 0
    assert "no applied record" in cap.err


def test_markdown_on_stdout(capsys: Capture) -> None:
    """--format markdown prints the comment with its marker first: the stack file as given."""
    desired, base = _case("instance-type")
    assert run(["plan", desired, "--base", base, "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"<!-- gpupool-plan: {desired} -->\n### gpupool plan: `plan-test`\n")


# -------------------------------------------------------------------------------- bases


def _copy_case(case: str, tmp_path: Path) -> Path:
    """Copy a case's desired file into tmp_path as stack.yaml."""
    desired = tmp_path / "stack.yaml"
    shutil.copy(CASES / case / "desired.yaml", desired)
    return desired


def test_recorded_base_is_the_default(tmp_path: Path, capsys: Capture) -> None:
    """With a record beside the stack file, plan diffs against it and says so."""
    desired = _copy_case("nodes-max", tmp_path)
    applied = load_stack(CASES / "nodes-max" / "base.yaml")
    path = record.record_path(desired, applied.name)
    record.write_applied(path, build(applied))
    assert run(["plan", str(desired), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["base"] == {"kind": "recorded", "ref": str(path), "note": None}
    assert doc["summary"] == {"add": 0, "change": 2, "destroy": 0, "replace": 0}


def test_recorded_base_without_record_is_empty(tmp_path: Path, capsys: Capture) -> None:
    """No record yet: everything is a create, and the text names the empty base and why."""
    desired = _copy_case("nodes-max", tmp_path)
    assert run(["plan", str(desired), "--detailed-exitcode"]) == 2
    out = capsys.readouterr().out
    assert "Base: empty (every resource is new); no applied record at" in out
    assert " to change, 0 to destroy." in out


def test_corrupt_record_exits_1_with_state_error(tmp_path: Path, capsys: Capture) -> None:
    """A corrupt record is one clear error line, exit 1."""
    desired = _copy_case("nodes-max", tmp_path)
    path = record.record_path(desired, "plan-test")
    path.parent.mkdir(parents=True)
    path.write_text("{ not json", encoding="utf-8")
    assert run(["plan", str(desired)]) == 1
    err = capsys.readouterr().err
    assert f"error: the applied record {path} is corrupt or of an unknown format" in err


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository whose first commit holds stacks/stack.yaml at the base version."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    _git(tmp_path, "init", "-q")
    (tmp_path / "stacks").mkdir()
    shutil.copy(CASES / "instance-type" / "base.yaml", tmp_path / "stacks" / "stack.yaml")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "base")
    shutil.copy(CASES / "instance-type" / "desired.yaml", tmp_path / "stacks" / "stack.yaml")
    return tmp_path


def test_git_ref_base_is_the_same_file_at_that_ref(repo: Path, capsys: Capture) -> None:
    """--base HEAD diffs the working file against its committed version."""
    stack = repo / "stacks" / "stack.yaml"
    assert run(["plan", str(stack), "--base", "HEAD", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["base"]["kind"] == "git" and doc["base"]["ref"] == "HEAD"
    assert doc["summary"]["replace"] == 1


def test_git_ref_where_the_file_did_not_exist_is_an_empty_base(repo: Path, capsys: Capture) -> None:
    """A stack file that did not exist at the ref plans from empty, with a note."""
    new = repo / "stacks" / "new.yaml"
    shutil.copy(CASES / "no-changes" / "desired.yaml", new)
    assert run(["plan", str(new), "--base", "HEAD"]) == 0
    cap = capsys.readouterr()
    assert "stacks/new.yaml did not exist at HEAD" in cap.out
    assert "0 to destroy." in cap.out


def test_unknown_git_ref_is_an_input_error(repo: Path, capsys: Capture) -> None:
    """A ref that is neither a file nor a revision exits 1 with one clear line."""
    stack = repo / "stacks" / "stack.yaml"
    assert run(["plan", str(stack), "--base", "no-such-branch"]) == 1
    err = capsys.readouterr().err
    assert "error: --base no-such-branch: no such file, and no such git revision" in err


def test_git_ref_outside_a_repository_is_an_input_error(tmp_path: Path, capsys: Capture) -> None:
    """Outside a git repository a non-file --base says so."""
    desired = _copy_case("nodes-max", tmp_path)
    assert run(["plan", str(desired), "--base", "main"]) == 1
    assert "is not inside a git repository" in capsys.readouterr().err


def test_invalid_stack_at_git_ref_is_reported_as_the_base(repo: Path, capsys: Capture) -> None:
    """A committed version that is invalid is named as the base, with its diagnostics."""
    stack = repo / "stacks" / "stack.yaml"
    stack.write_text(INVALID.read_text(encoding="utf-8"), encoding="utf-8")
    _git(repo, "commit", "-q", "-am", "broken")
    shutil.copy(CASES / "instance-type" / "desired.yaml", stack)
    assert run(["plan", str(stack), "--base", "HEAD"]) == 1
    err = capsys.readouterr().err
    assert "HEAD:stacks/stack.yaml" in err  # diagnostics are placed in the committed file
    assert "error: the stack file stacks/stack.yaml at HEAD is invalid (1 error)" in err


def test_directory_as_base_is_an_input_error(tmp_path: Path, capsys: Capture) -> None:
    """--base naming a directory says to give a stack file or a git ref."""
    desired = _copy_case("nodes-max", tmp_path)
    assert run(["plan", str(desired), "--base", str(tmp_path)]) == 1
    assert "is a directory; give a stack file or a git ref" in capsys.readouterr().err


# ------------------------------------------------------------------- a base of another stack


def _renamed(source: Path, target: Path, name: str) -> Path:
    """Copy a stack file with another metadata.name."""
    text = source.read_text(encoding="utf-8")
    assert "metadata: {name: plan-test," in text
    target.write_text(text.replace("{name: plan-test,", f"{{name: {name},"), encoding="utf-8")
    return target


def test_a_base_file_of_another_stack_is_an_error_unless_forced(
    tmp_path: Path, capsys: Capture
) -> None:
    """Issue 18: a --base file of a different stack was accepted silently; its resources belong
    to another Pulumi stack, so the plan compared unrelated things."""
    desired, _ = _case("instance-type")
    other = _renamed(CASES / "instance-type" / "base.yaml", tmp_path / "other.yaml", "staging")
    assert run(["plan", desired, "--base", str(other)]) == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == (
        f"error: --base {other} is stack 'staging', not 'plan-test' (metadata.name differs): a "
        "plan against it shows another stack's resources; pass --force-base to compare anyway"
    )
    assert run(["plan", desired, "--base", str(other), "--force-base", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["replace"] == 1


def test_a_git_base_where_the_stack_had_another_name_is_an_error_unless_forced(
    repo: Path, capsys: Capture
) -> None:
    stack = repo / "stacks" / "stack.yaml"
    _renamed(CASES / "instance-type" / "base.yaml", stack, "old-name")
    _git(repo, "commit", "-q", "-am", "old name")
    shutil.copy(CASES / "instance-type" / "desired.yaml", stack)
    assert run(["plan", str(stack), "--base", "HEAD"]) == 1
    assert "is stack 'old-name', not 'plan-test'" in capsys.readouterr().err
    assert run(["plan", str(stack), "--base", "HEAD", "--force-base"]) == 0


def test_existing_nodes_never_total_0_dollars(capsys: Capture, tmp_path: Path) -> None:
    """On-prem pools without a declared price are not priced, so no format shows a $0 total
    (README: never $0)."""
    data = yaml.safe_load((EXAMPLES / "onprem-hami.yaml").read_text(encoding="utf-8"))
    for pool in data["pools"]:
        pool.pop("price")
    stack = tmp_path / "onprem-unpriced.yaml"
    stack.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    assert run(["plan", str(stack)]) == 0
    text = capsys.readouterr().out
    [total] = [line for line in text.splitlines() if line.strip().startswith("total")]
    assert "$" not in total and "unknown" in total
    assert run(["plan", "--format", "markdown", str(stack)]) == 0
    markdown = capsys.readouterr().out
    [this_plan] = [line for line in markdown.splitlines() if line.startswith("| this plan |")]
    assert "$0" not in this_plan and "unknown" in this_plan
    assert run(["plan", "--format", "json", str(stack)]) == 0
    cost = json.loads(capsys.readouterr().out)["cost"]
    assert cost["monthly"] == {"min": None, "max": None}
