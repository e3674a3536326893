"""up and destroy ask only once they know they can run, and up shows what it applies.

Against the stand-in pulumi CLI (tests/fake_pulumi). A terminal is stood in for by a stdin whose
``isatty()`` is true and which records whether gpupool read an answer from it.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from gpupool import record
from gpupool.cli import run
from tests import fake_pulumi
from tests.paths import EXAMPLES

EXAMPLE = EXAMPLES / "aws-inference-l4.yaml"


class Terminal(io.StringIO):
    """A stdin that is a terminal and has ``answer`` typed; ``asked`` once gpupool read it."""

    def __init__(self, answer: str) -> None:
        super().__init__(answer + "\n")
        self.asked = False

    def isatty(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        self.asked = True
        return super().readline(size)


@pytest.fixture
def stack_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fake_pulumi.stack_workspace(EXAMPLE, tmp_path, monkeypatch)


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> Terminal:
    typed = Terminal("yes")
    monkeypatch.setattr(sys, "stdin", typed)
    return typed


def _error(err: str) -> str:
    (line,) = [x for x in err.splitlines() if x.startswith("error:")]
    return line


def test_destroy_says_the_cli_is_missing_before_asking(
    stack_file: Path, terminal: Terminal, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 18: destroy asked for "yes" and only then said that the Pulumi CLI is missing."""
    monkeypatch.setenv("PATH", str(stack_file.parent))
    assert run(["destroy", str(stack_file)]) == 1
    err = capsys.readouterr().err
    assert _error(err).startswith("error: Pulumi CLI not found")
    assert "Only 'yes' will be accepted" not in err
    assert not terminal.asked


def test_destroy_says_the_passphrase_is_missing_before_asking(
    stack_file: Path, terminal: Terminal, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    """A file backend keeps secrets with the passphrase; without it nothing is asked or run.

    The rule is the CLI's readPassphrase (pulumi/pulumi pkg/secrets/passphrase/manager.go):
    PULUMI_CONFIG_PASSPHRASE set, or PULUMI_CONFIG_PASSPHRASE_FILE naming a readable file.
    """
    monkeypatch.delenv("PULUMI_CONFIG_PASSPHRASE")
    assert run(["destroy", str(stack_file)]) == 1
    assert _error(capsys.readouterr().err).startswith(
        "error: The state passphrase is not set: the backend file://")
    assert not terminal.asked
    assert fake_pulumi.calls(tmp_path) == [["version"]]  # only the version check ran
    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE_FILE", str(tmp_path / "no-such-file"))
    assert run(["destroy", str(stack_file)]) == 1
    assert "PULUMI_CONFIG_PASSPHRASE_FILE names" in _error(capsys.readouterr().err)
    assert not terminal.asked


def test_destroy_asks_once_it_can_run_and_a_yes_destroys(
    stack_file: Path, terminal: Terminal, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["up", "--yes", str(stack_file)]) == 0
    capsys.readouterr()
    assert run(["destroy", str(stack_file)]) == 0
    cap = capsys.readouterr()
    assert terminal.asked
    assert "Destroy every resource of stack inference-prod? GPU nodes and their workloads go " \
           "away. Only 'yes' will be accepted: " in cap.err
    assert cap.out.startswith("Destroy complete: 6 delete.")


def test_up_with_a_missing_passphrase_fails_before_the_engine_runs(
    stack_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    monkeypatch.delenv("PULUMI_CONFIG_PASSPHRASE")
    assert run(["up", "--yes", str(stack_file)]) == 1
    assert "The state passphrase is not set" in _error(capsys.readouterr().err)
    assert fake_pulumi.calls(tmp_path) == [["version"]]


def test_destroy_without_a_terminal_says_so_in_one_sentence(
    stack_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 18: the message was the question glued to "needs confirmation" (garbled)."""
    assert run(["destroy", str(stack_file)]) == 1
    assert _error(capsys.readouterr().err) == (
        "error: destroy of stack inference-prod needs confirmation and there is no terminal to "
        "ask on; pass --yes"
    )


def test_up_yes_prints_the_plan_it_applies_before_applying(
    stack_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 18: ``up --yes`` applied without showing what it was about to do."""
    assert run(["up", "--yes", str(stack_file)]) == 0
    out = capsys.readouterr().out
    plan_at = out.index("Plan: 2 to add, 1 to change, 1 to destroy.")
    assert "+/- aws:eks/nodeGroup:NodeGroup" in out[:plan_at]
    assert out.index("Apply complete: 1 create, 1 replace, 3 same, 1 update.") > plan_at


def test_a_no_at_the_prompt_applies_nothing(
    stack_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    typed = Terminal("no")
    monkeypatch.setattr(sys, "stdin", typed)
    assert run(["up", str(stack_file)]) == 1
    cap = capsys.readouterr()
    assert typed.asked and cap.err.endswith("Apply cancelled.\n")
    assert "Plan: 2 to add" in cap.out
    assert not record.record_path(stack_file, "inference-prod").exists()
    assert not [argv for argv in fake_pulumi.calls(tmp_path) if "up" in argv]
