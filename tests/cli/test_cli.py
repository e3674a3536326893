"""The command line: exit codes, output streams and the JSON shape of docs/commands.md."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gpupool.cli import run
from tests.paths import EXAMPLES, FIXTURES, ROOT

EXAMPLE = EXAMPLES / "aws-inference-l4.yaml"
BAD = FIXTURES / "invalid" / "mig-layout-does-not-fit.yaml"


def test_validate_valid_file_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    """A valid stack exits 0 and says so on stdout."""
    assert run(["validate", str(EXAMPLE)]) == 0
    assert "valid" in capsys.readouterr().out


def test_validate_invalid_file_exits_1_with_diagnostics_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An invalid stack exits 1; the located diagnostic goes to stderr."""
    assert run(["validate", str(BAD)]) == 1
    cap = capsys.readouterr()
    assert f"{BAD}:12:17: error: MIG layout does not fit on A100-SXM4-80GB" in cap.err
    assert "invalid: 1 error" in cap.out


def test_validate_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    """--format json prints exactly the documented shape (docs/commands.md) on stdout."""
    assert run(["validate", "--format", "json", str(BAD)]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["format_version"] == "1"
    assert doc["valid"] is False
    [d] = doc["diagnostics"]
    assert set(d) == {"severity", "code", "summary", "detail", "path", "range"}
    assert d["code"] == "mig.layout-does-not-fit"
    assert d["path"] == ["pools", 0, "sharing", "mig", "layout"]
    assert d["range"]["filename"] == str(BAD)
    assert d["range"]["start"] == {"line": 12, "column": 17}
    assert d["detail"] == "3g.40gb x2 uses all 8 memory slots; 1g.10gb x1 has no slot left."


def test_validate_several_files_reports_all(capsys: pytest.CaptureFixture[str]) -> None:
    """Several files are validated together; one bad file makes the exit 1."""
    assert run(["validate", "--format", "json", str(EXAMPLE), str(BAD)]) == 1
    doc = json.loads(capsys.readouterr().out)
    problems = [d for d in doc["diagnostics"] if d["severity"] != "info"]  # advice is no problem
    assert {d["range"]["filename"] for d in problems} == {str(BAD)}


def test_usage_errors_exit_64(capsys: pytest.CaptureFixture[str]) -> None:
    """Bad flags exit 64 (EX_USAGE), not argparse's 2, which means 'changes'."""
    assert run(["validate"]) == 64
    assert run(["validate", "--format", "yaml", str(EXAMPLE)]) == 64
    assert run(["no-such-command"]) == 64
    assert run([]) == 64
    assert run(["node"]) == 64
    assert "usage" in capsys.readouterr().err.lower()


def test_missing_file_is_one_line_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    """An operational error is one line on stderr, no traceback."""
    assert run(["validate", "nope.yaml"]) == 1
    err = capsys.readouterr().err
    assert err == "error: nope.yaml: no such file\n"


def test_debug_shows_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    """--debug adds the traceback for operational errors."""
    assert run(["--debug", "validate", "nope.yaml"]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_schema_command_prints_the_published_schema(capsys: pytest.CaptureFixture[str]) -> None:
    """gpupool schema prints the JSON Schema file unchanged."""
    assert run(["schema"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads((ROOT / "schemas" / "gpupool.schema.json").read_text())


def test_version_and_help_via_console_script() -> None:
    """The installed entry point answers --version without importing the heavy modules."""
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from gpupool.cli import run; code = run(['--version']) ; "
            "heavy = ('jsonschema', 'pulumi', 'jinja2', 'yaml'); "
            "print(sorted(m for m in heavy if m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "gpupool 0.1.0" in out.stdout
    assert out.stdout.strip().endswith("[]")


def test_the_process_ends_with_its_output_written_or_says_why() -> None:
    """``cli.main`` ends the process without the interpreter's shutdown: what it printed must
    still arrive whole, a reader that left early is no error, and a write that fails is one
    line and exit 1 (never a traceback)."""
    import os

    example = str(ROOT / "stacks" / "examples" / "azure-kai-fair.yaml")
    cmd = [sys.executable, "-c", "from gpupool.cli import main; main()", "plan", example,
           "--format", "json", "--no-simulation"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    whole = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    assert whole.returncode == 0 and json.loads(whole.stdout)["format_version"]
    early = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert early.stdout is not None and early.stderr is not None
    early.stdout.read(10)
    early.stdout.close()
    assert early.wait(timeout=120) == 0 and b"Traceback" not in early.stderr.read()
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w", encoding="utf-8") as full:
            done = subprocess.run(cmd, stdout=full, stderr=subprocess.PIPE, text=True, env=env,
                                  check=False)
        assert done.returncode == 1 and "Traceback" not in done.stderr
        assert done.stderr.endswith("error: a write failed: No space left on device\n")
