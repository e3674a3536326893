"""Colours on a terminal; none with NO_COLOR, --no-color, a pipe or a file.

The rule is https://no-color.org: "Command-line software which adds ANSI color to its output by
default should check for a NO_COLOR environment variable that, when present and not an empty
string, prevents the addition of ANSI color." A terminal is stood in for by a stream whose
``isatty()`` is true; one test runs the console script on a real pseudo-terminal.
"""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from gpupool.cli import run
from gpupool.views import colour
from tests.paths import FIXTURES, ROOT

DESIRED = FIXTURES / "plan" / "instance-type" / "desired.yaml"
BASE = FIXTURES / "plan" / "instance-type" / "base.yaml"
INVALID = FIXTURES / "invalid" / "mig-layout-does-not-fit.yaml"
ESC = "\x1b["


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _terminal(monkeypatch: pytest.MonkeyPatch) -> tuple[Tty, Tty]:
    """Make stdout and stderr terminals (in the test's body: pytest resets them after setup)."""
    out, err = Tty(), Tty()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TERM", raising=False)
    return out, err


def _strip(text: str) -> str:
    for code in (colour.RESET, colour.BOLD, colour.RED, colour.GREEN, colour.YELLOW):
        text = text.replace(code, "")
    return text


def test_a_plan_on_a_terminal_has_terraforms_colours(monkeypatch: pytest.MonkeyPatch) -> None:
    out, _ = _terminal(monkeypatch)
    assert run(["plan", str(DESIRED), "--base", str(BASE)]) == 0
    text = out.getvalue()
    assert f"{colour.YELLOW}+/-{colour.RESET} aws:eks/nodeGroup:NodeGroup" in text
    assert f"      {colour.YELLOW}~{colour.RESET} instance_types.0:" in text
    assert f"{colour.BOLD}Plan: 1 to add, 0 to change, 1 to destroy.{colour.RESET}" in text
    plain = io.StringIO()
    monkeypatch.setattr(sys, "stdout", plain)
    assert run(["plan", str(DESIRED), "--base", str(BASE)]) == 0
    assert _strip(text) == plain.getvalue()  # colour only wraps, it never changes the text


def test_diagnostics_on_a_terminal_colour_their_severity(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, err = _terminal(monkeypatch)
    assert run(["validate", str(INVALID)]) == 1
    assert f":12:17: {colour.RED}error{colour.RESET}: MIG layout does not fit" in err.getvalue()


@pytest.mark.parametrize("how", ["NO_COLOR", "--no-color", "--no-color after"])
def test_no_color_and_the_flag_turn_colour_off(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    out, err = _terminal(monkeypatch)
    flag = [] if how == "NO_COLOR" else ["--no-color"]
    if how == "NO_COLOR":
        monkeypatch.setenv("NO_COLOR", "1")
    before, after = (flag, []) if how == "--no-color" else ([], flag)
    assert run([*before, "plan", str(DESIRED), "--base", str(BASE), *after]) == 0
    assert run([*before, "validate", str(INVALID), *after]) == 1
    assert ESC not in out.getvalue() and ESC not in err.getvalue()
    assert "Plan: 1 to add" in out.getvalue()


def test_an_empty_no_color_keeps_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    tty = _terminal(monkeypatch)
    monkeypatch.setenv("NO_COLOR", "")  # "present and not an empty string" turns it off
    assert run(["plan", str(DESIRED), "--base", str(BASE)]) == 0
    assert ESC in tty[0].getvalue()


def test_json_is_never_coloured(monkeypatch: pytest.MonkeyPatch) -> None:
    tty = _terminal(monkeypatch)
    assert run(["plan", "--format", "json", str(DESIRED), "--base", str(BASE)]) == 0
    assert ESC not in tty[0].getvalue()


def test_a_pipe_gets_no_colour_and_a_real_terminal_does(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NO_COLOR", None)
    env["TERM"] = "xterm"
    cmd = [sys.executable, "-m", "gpupool", "plan", str(DESIRED), "--base", str(BASE)]
    piped = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    assert ESC not in piped.stdout and "Plan: 1 to add" in piped.stdout
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run(cmd, stdout=follower, stderr=subprocess.DEVNULL, env=env,
                              check=True)
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the follower side is closed and drained
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    assert proc.returncode == 0
    shown = b"".join(chunks).decode()
    assert f"{colour.BOLD}Plan: 1 to add" in shown
