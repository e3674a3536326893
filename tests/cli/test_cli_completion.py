"""``gpupool completion bash|zsh``: completion scripts from shtab, run in the real shells.

shtab (https://github.com/iterative/shtab) turns the argparse parser into a static script, so the
completion always matches the flags; it is imported by the completion command only, so no other
command pays for it (``gpupool --help`` and ``--version`` stay as fast as before).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpupool.cli import run
from tests.paths import ROOT


def _script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert run(["completion", shell]) == 0
    return capsys.readouterr().out


def _bash_complete(script: Path, words: list[str], cwd: Path = ROOT) -> list[str]:
    """Complete the last of ``words`` the way bash does on Tab, and return COMPREPLY."""
    line = " ".join(words)
    code = (
        f"source {script}\n"
        f"COMP_WORDS=({line})\n"
        f"COMP_CWORD={len(words) - 1}\n"
        f"COMP_LINE='{line}'\nCOMP_POINT=${{#COMP_LINE}}\n"
        f"_shtab_gpupool gpupool '{words[-1]}' '{words[-2]}'\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", code], capture_output=True,
                          text=True, check=True, cwd=cwd)
    return done.stdout.split()


def test_bash_completes_commands_flags_and_choices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "gpupool.bash"
    script.write_text(_script("bash", capsys))
    assert _bash_complete(script, ["gpupool", "pl"]) == ["plan"]
    assert _bash_complete(script, ["gpupool", "up", "--re"]) == ["--refresh"]
    assert set(_bash_complete(script, ["gpupool", "up", "--"])) >= {
        "--yes", "--refresh", "--expect", "--format"}
    assert _bash_complete(script, ["gpupool", "completion", "z"]) == ["zsh"]
    assert _bash_complete(script, ["gpupool", "plan", "--format", "m"]) == ["markdown"]
    (tmp_path / "prod.yaml").write_text("")  # file arguments complete to files
    assert _bash_complete(script, ["gpupool", "plan", "pro"], tmp_path) == ["prod.yaml"]


def test_zsh_registers_the_completion_for_gpupool(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if shutil.which("zsh") is None:
        if os.environ.get("CI"):  # .ci/run installs Debian's zsh: CI never skips this
            pytest.fail("zsh is not installed; .ci/run installs it (Debian package zsh)")
        pytest.skip("zsh is not installed")
    script = tmp_path / "_gpupool"
    script.write_text(_script("zsh", capsys))
    code = (
        "autoload -U compinit; compinit -u -D\n"
        f'eval "$(<{script})"\n'
        "print -r -- $_comps[gpupool]\n"
        "_describe() { shift; print -rl -- ${(P)1} }\n"  # list what the function offers
        "_shtab_gpupool_commands\n"
    )
    done = subprocess.run(["zsh", "-f", "-c", code], capture_output=True, text=True,
                          check=True, env={**os.environ, "HOME": str(tmp_path)})
    lines = done.stdout.splitlines()
    assert lines[0] == "_shtab_gpupool"
    # name:description (shtab 1.7.1, the lowest allowed, leaves the description out)
    assert {line.split(":")[0] for line in lines[1:]} == {
        "validate", "plan", "simulate", "render", "preview", "up", "destroy", "drift", "init",
        "schema", "catalog", "node", "completion", "advise"}


def test_the_completion_library_is_loaded_only_by_the_completion_command() -> None:
    """bench/run.py measures --version against Python's start-up; shtab must stay out of it."""
    code = (
        "import sys\n"
        "from gpupool.cli import run\n"
        "assert run(['--version']) == 0\n"
        "assert run(['plan', '--help']) == 0\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('shtab', 'argcomplete') or m == 'gpupool.views.colour'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.stdout.strip().splitlines()[-1] == "[]"
