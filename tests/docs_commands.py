"""Run every command README.md and docs/*.md show, and compare or refresh what they show.

``python tests/docs_commands.py`` runs them all and reports each block that differs;
``python tests/docs_commands.py --update [FILE...]`` writes the real output into the docs
(keeping each ``...``; review the diff as for a golden file), as does
``GPUPOOL_UPDATE_DOCS=1 python -m pytest tests/test_docs_commands.py``. How a block is read is in
tests/docs_blocks.py, where it runs in tests/docs_scenes.py.

Real output differs from run to run only in what this module rewrites explicitly, the same way
before it compares or writes (``normalise``): the scene's folders as ``/home/me/project`` and
``/home/me``, the Prometheus URL as ``http://127.0.0.1:9090``, and elapsed times in progress
lines as ``[    1.0s]``. Trailing white space is not compared.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

if __package__ in (None, ""):  # run as a script: import the checkout's tests and gpupool
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests import docs_blocks, docs_scenes
from tests.docs_blocks import Block, Step
from tests.paths import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COPIED = ("stacks", "schemas", "templates", "tests/fixtures")
SHOWN_HOME, SHOWN_PROJECT = "/home/me", "/home/me/project"
SHOWN_PROMETHEUS = "http://127.0.0.1:9090"
#: The programs the documented commands use besides gpupool.
TOOLS = ("sh", "bash", "cat", "cp", "diff", "env", "git", "head", "sed")
_ELAPSED = re.compile(r"\[\s*\d+(?:\.\d+)?s\]")
_TIMEOUT_S = 300


@dataclass
class Ran:
    """What one command printed (normalised) and its exit code."""

    step: Step
    output: list[str]
    code: int


def normalise(text: str, env: dict[str, str]) -> list[str]:
    """The output as the docs show it: scene paths, URLs and timings rewritten (see above)."""
    url = env.get("GPUPOOL_DOCS_PROMETHEUS")
    if url:
        text = text.replace(url, SHOWN_PROMETHEUS)
    project, home = env["GPUPOOL_DOCS_PROJECT"], env["HOME"]
    for real, shown in ((project, SHOWN_PROJECT), (home, SHOWN_HOME)):
        text = text.replace(os.path.realpath(real), shown).replace(real, shown)
    text = _ELAPSED.sub(lambda m: "[" + " " * (len(m.group()) - 6) + "1.0s]", text)
    return [line.rstrip() for line in text.splitlines()]


def _environment(scratch: Path) -> dict[str, str]:
    bin_dir, home, project = scratch / "bin", scratch / "home", scratch / "project"
    for folder in (bin_dir, home, project):
        folder.mkdir(parents=True)
    launcher = bin_dir / "gpupool"
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m gpupool "$@"\n', encoding="utf-8")
    launcher.chmod(0o755)
    for tool in TOOLS:  # only these on PATH: no Pulumi CLI or kubectl of the machine's
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    return {
        "PATH": str(bin_dir), "HOME": str(home),
        "KUBECONFIG": str(home / ".kube" / "config"), "PYTHONPATH": str(ROOT),
        "PYTHONIOENCODING": "utf-8", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC",
        "NO_COLOR": "1", "COLUMNS": "100", "GPUPOOL_DOCS_PROJECT": str(project),
        "GPUPOOL_DOCS_PYTHON": sys.executable,
    }


def _setup(scratch: Path, block: Block, resources: ExitStack) -> docs_scenes.Scene:
    env = _environment(scratch)
    project = Path(env["GPUPOOL_DOCS_PROJECT"])
    for folder in COPIED:
        shutil.copytree(ROOT / folder, project / folder, symlinks=True)
    scene = docs_scenes.Scene(project, Path(env["HOME"]), env, resources)
    extra = docs_scenes.prepare(block.steps[0].command)
    if extra is not None:
        extra(scene)
    return scene


def _command(step: Step, env: dict[str, str]) -> str:
    url = env.get("GPUPOOL_DOCS_PROMETHEUS")
    return step.command.replace(SHOWN_PROMETHEUS, url) if url else step.command


def run_block(block: Block) -> list[Ran]:
    """Run a block's commands in order in one fresh scene (the commands not run are skipped)."""
    ran: list[Ran] = []
    with tempfile.TemporaryDirectory(prefix="gpupool-docs-") as tmp, ExitStack() as resources:
        scene = _setup(Path(tmp), block, resources)
        for step in block.steps:
            if docs_scenes.not_run(step.command):
                continue
            done = subprocess.run(
                ["bash", "-c", _command(step, scene.env)], cwd=scene.project, env=scene.env,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                timeout=_TIMEOUT_S, check=False)
            text = done.stdout.decode("utf-8", errors="replace")
            if block.kind == "usage":
                text = text.split("\n\n")[0]
            ran.append(Ran(step, normalise(text, scene.env), done.returncode))
    return ran


def problems(block: Block, ran: list[Ran]) -> list[str]:
    """What differs between the block as shown and as run: one message per command."""
    found: list[str] = []
    for one in ran:
        if block.kind == "script":
            if one.code != 0:
                found.append(f"$ {one.step.command}\nexited {one.code}:\n" + "\n".join(one.output))
            continue
        shown = [line.rstrip() for line in one.step.shown]
        if not docs_blocks.matches(shown, one.output):
            diff = difflib.unified_diff(shown, docs_blocks.refreshed(shown, one.output),
                                        "as shown", "as run", lineterm="", n=2)
            found.append(f"$ {one.step.command}\n" + "\n".join(diff))
    return found


def updated(block: Block, ran: list[Ran]) -> list[str] | None:
    """The block's new content lines, or None when it is a script (they show no output)."""
    if block.kind == "script":
        return None
    outputs = {id(one.step): one.output for one in ran}
    steps = [Step(step.command, docs_blocks.refreshed([line.rstrip() for line in step.shown],
                                                      outputs[id(step)]))
             if id(step) in outputs else step for step in block.steps]
    return docs_blocks.content(steps)


def all_blocks(paths: list[Path] | None = None) -> list[Block]:
    """Every command block of the docs (or of ``paths``)."""
    return [block for path in (paths or DOCS) for block in docs_blocks.blocks(path)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="write the real output into the docs")
    parser.add_argument("files", nargs="*", type=Path, help="Markdown files (default: all docs)")
    args = parser.parse_args(argv)
    failed = 0
    for path in [p.resolve() for p in args.files] or DOCS:
        replacements: dict[int, list[str]] = {}
        for block in docs_blocks.blocks(path):
            try:
                ran = run_block(block)
            except pytest.skip.Exception as why:  # a stand-in this machine lacks (Prometheus)
                print(f"--- {block.where}: not run here: {why}")
                continue
            found = problems(block, ran)
            new = updated(block, ran) if args.update else None
            if new is not None and found:
                replacements[block.first] = new
                print(f"updated {block.where}")
            elif found:
                failed += 1
                print(f"--- {block.where}\n" + "\n\n".join(found) + "\n")
        if replacements:
            docs_blocks.rewrite(path, replacements)
    print(f"{failed} block(s) differ" if failed else "every shown command matches its output")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
