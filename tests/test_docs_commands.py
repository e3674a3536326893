"""Every command README.md and docs/*.md show prints what they show (issue 35 item 9).

Each block of commands runs in a fresh scene (tests/docs_scenes.py) and its output is compared
as tests/docs_blocks.py says: a line ``...`` stands for lines left out. When outputs change on
purpose, ``GPUPOOL_UPDATE_DOCS=1`` (or ``python tests/docs_commands.py --update``) writes the
real output into the docs, keeping each ``...``; review the diff.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import docs_blocks, docs_commands, docs_scenes
from tests.paths import ROOT

UPDATE = os.environ.get("GPUPOOL_UPDATE_DOCS") == "1"
_WHERE = [(path, n) for path in docs_commands.DOCS
          for n in range(len(docs_blocks.blocks(path)))]


# The docs show a full install's output (the kubernetes client among it: drift's cluster
# source), which the lower-bounds run, with the core dependencies only, does not have.
@pytest.mark.cloud_sdks
@pytest.mark.parametrize(("path", "index"), _WHERE,
                         ids=[f"{p.name}-{n}" for p, n in _WHERE])
def test_the_shown_commands_print_what_the_docs_show(path: Path, index: int) -> None:
    block = docs_blocks.blocks(path)[index]  # read again: an update may have moved it
    skipped = [s.command for s in block.steps if docs_scenes.not_run(s.command)]
    ran = docs_commands.run_block(block)
    assert len(ran) + len(skipped) == len(block.steps)
    found = docs_commands.problems(block, ran)
    new = docs_commands.updated(block, ran)
    if found and UPDATE and new is not None:
        docs_blocks.rewrite(path, {block.first: new})
        return
    assert not found, f"{block.where} differs from what it shows (GPUPOOL_UPDATE_DOCS=1 " \
                      "rewrites it):\n" + "\n\n".join(found)


def test_every_reason_not_to_run_names_a_shown_command() -> None:
    """The allow-list holds no stale entry: each names at least one command the docs show."""
    shown = [s.command for b in docs_commands.all_blocks() for s in b.steps]
    for prefix in docs_scenes.NOT_RUN:
        assert any(c.startswith(prefix) for c in shown), f"no shown command starts {prefix!r}"


def test_every_scene_is_used() -> None:
    firsts = {b.steps[0].command for b in docs_commands.all_blocks()}
    assert set(docs_scenes.SCENES) <= firsts, set(docs_scenes.SCENES) - firsts


def test_a_changed_line_fails_and_ellipsis_stands_for_lines() -> None:
    actual = ["Plan: 1 to add.", "", "Capacity:", "  pool  GPU", "  a  L4", "", "Cost:"]
    assert docs_blocks.matches(actual, actual)
    assert docs_blocks.matches(["Plan: 1 to add.", "...", "Cost:"], actual)
    assert docs_blocks.matches(["...", "  a  L4", "..."], actual)
    assert not docs_blocks.matches(["Plan: 2 to add.", "..."], actual)  # a line changed
    assert not docs_blocks.matches(["Capacity:", "..."], actual)  # the output starts before it
    assert not docs_blocks.matches(["...", "Capacity:"], actual)  # and goes on after it
    assert not docs_blocks.matches(["...", "  a  L4", "Capacity:", "..."], actual)  # in order
    assert not docs_blocks.matches(actual[:-1], actual)


def test_a_refresh_keeps_the_ellipses_and_takes_the_new_lines() -> None:
    """A summary line first (left out: the shown output skipped the start), a column more in
    the shown rows (taken), a row more inside a shown stretch (taken), a line gone (dropped)."""
    shown = ["...", "Capacity:", "  a  L4", "  c  A10", "...", "Cost:", "  old line", "  total  $1"]
    actual = ["Summary: 1 pool", "Plan: 1 to add.", "Capacity:", "  a  L4  shared", "  b  T4",
              "  c  A10  shared", "", "Tenants:", "Cost:", "  total  $1"]
    new = docs_blocks.refreshed(shown, actual)
    assert new == ["...", "Capacity:", "  a  L4  shared", "  b  T4", "  c  A10  shared", "...",
                   "Cost:", "  total  $1"]
    assert docs_blocks.matches(new, actual)
    # a summary added before a stretch the output starts with is shown: nothing elides it
    assert docs_blocks.refreshed(["Plan: 1 to add.", "..."], ["Summary", "Plan: 1 to add.",
                                                             "x"]) == ["Summary",
                                                                      "Plan: 1 to add.", "..."]
    assert docs_blocks.refreshed(["old"], ["new", "lines"]) == ["new", "lines"]


def test_normalising_rewrites_scene_paths_urls_and_timings() -> None:
    env = {"GPUPOOL_DOCS_PROJECT": "/tmp/x/project", "HOME": "/tmp/x/home",
           "GPUPOOL_DOCS_PROMETHEUS": "http://127.0.0.1:41234"}
    text = ("backend file:///tmp/x/project/stacks/.gpupool/state\n"
            "overlay /tmp/x/home/.cache/gpupool  \nquery http://127.0.0.1:41234/api\n"
            "[   12.3s]  create  ConfigMap x ... done\n")
    assert docs_commands.normalise(text, env) == [
        "backend file:///home/me/project/stacks/.gpupool/state",
        "overlay /home/me/.cache/gpupool", "query http://127.0.0.1:9090/api",
        "[    1.0s]  create  ConfigMap x ... done"]


def test_the_stack_file_skeleton_validates_without_a_warning(tmp_path: Path) -> None:
    """docs/stack-file.md's Skeleton is a stack a reader copies: no error, warning or advice."""
    text = (ROOT / "docs" / "stack-file.md").read_text(encoding="utf-8")
    skeleton = re.search(r"## Skeleton\n\n```yaml\n(.*?)^```", text, re.S | re.M)
    assert skeleton is not None
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "skeleton.yaml").write_text(skeleton.group(1), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "gpupool", "validate", "stacks/skeleton.yaml"],
                          cwd=tmp_path, capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (done.returncode, done.stdout, done.stderr) == (0, "stacks/skeleton.yaml: valid\n", "")
