"""The repository stands alone: no tracked file refers to files a clone does not have.

One exception, in tests only: conformance tests read unchanged upstream files from
``../shared/reference/upstream/`` and skip, naming the file, where a clone lacks that folder
(``tests.paths.shared_upstream``). The package and the docs never name it.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.paths import ROOT

# Spelt in pieces, so that this file does not match itself.
_OUTSIDE = re.compile(
    "|".join(
        [
            r"\bSPEC" + r"\.md\b",  # the design contract the project was written from
            r"\bSPEC" + r" ?§?\d",  # its section numbers
            r"\.\./" + r"shared\b",  # the folder beside the repository it came with
            r"/work/" + r"shared\b",
        ]
    )
)
# The upstream files tests may read when present (they skip without them).
_TESTS_MAY_READ = re.compile(r"\.\./" + r"shared/reference/upstream\b")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_no_tracked_file_refers_to_files_outside_the_repository() -> None:
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=False
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    found = []
    for name in listed.stdout.decode().split("\0"):
        path = ROOT / name
        if not name or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if name.startswith("tests/"):
                line = _TESTS_MAY_READ.sub("", line)
            if _OUTSIDE.search(line):
                found.append(f"{name}:{n}: {line.strip()[:120]}")
    assert not found, "references to files outside the repository:\n" + "\n".join(found)
