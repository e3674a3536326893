"""The repository holds only what this project wrote: no upstream file, and no block of one.

Facts carry over from upstream (a chart's key paths, a field's id and unit, a label's spelling);
files and passages do not. This test compares every file the repository holds against the
unchanged upstream files kept beside it in ``../shared/reference/upstream/`` and fails when one
comes back: the same bytes, a long line of prose, or a run of consecutive lines, after a
normalisation that sees through quoting, indentation, list and comment markers and trailing
commas (so a YAML block pasted into JSON, a test string or a comment is still found).

Without that folder (a user's clone) the comparison skips, naming it; the checks beside it that
need no upstream file (no Go source, no ``tests/upstream/`` folder) run everywhere.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.paths import ROOT, SHARED_UPSTREAM

# A line counts when, normalised, it is at least this long and this alphabetic: short structural
# lines (`type: string`, `enabled: true`, `}`) are shared by any two YAML or JSON files.
MIN_LINE_CHARS = 20
MIN_LINE_LETTERS = 10
# This many consecutive counted lines shared with an upstream file make a copied block.
BLOCK_LINES = 4
# A single counted line at least this long, shared verbatim, is copied prose (a description).
PROSE_LINE_CHARS = 80
# Files over this size are not text a person wrote (none in the tree comes near it).
MAX_BYTES = 8 * 1024 * 1024

_MARKERS = re.compile(r"^(?:[-*#>]+\s+|//+\s*|\*\s+)+")
_SPACE = re.compile(r"\s+")
# `key: token` (a label and its value, a chart key and an image name) states one fact; two files
# that list the same labels or keys in sorted order share such lines without copying anything.
_FACT = re.compile(r"^[^\s:]+: [^\s]*$")


def normalise(line: str) -> str:
    """The line as compared: no indentation, list, quote or comment markers, single spaces."""
    text = line.replace('"', "").replace("'", "").replace("`", "").strip()
    text = _MARKERS.sub("", text)
    text = _SPACE.sub(" ", text).strip().rstrip(",;{}[] ").strip()
    return text


def counted(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, normalised line) for each line long and wordy enough to count.

    A line of a string with escaped newlines (a file embedded in JSON) is split at them, so a
    list rendered into a ConfigMap's data is compared line by line too.
    """
    for number, physical in enumerate(text.splitlines(), start=1):
        for line in physical.split("\\n"):
            norm = normalise(line)
            if (
                len(norm) >= MIN_LINE_CHARS
                and sum(c.isalpha() for c in norm) >= MIN_LINE_LETTERS
                and not _FACT.match(norm)
            ):
                yield number, norm


def _digest(lines: tuple[str, ...]) -> bytes:
    return hashlib.blake2b("\n".join(lines).encode(), digest_size=12).digest()


def _text(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) > MAX_BYTES or b"\0" in data[:4096]:
        return None
    return data.decode("utf-8", errors="replace")


class Upstream:
    """Fingerprints of every upstream file: whole-file hashes, line blocks and prose lines."""

    def __init__(self, folder: Path) -> None:
        self.files: dict[bytes, str] = {}
        self.blocks: dict[bytes, str] = {}
        self.prose: dict[str, str] = {}
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            name = path.relative_to(folder).as_posix()
            if path.name in ("SOURCES.md", "README.md"):
                continue  # the folder's own indexes, written for this project
            self.files[hashlib.sha256(path.read_bytes()).digest()] = name
            text = _text(path)
            if text is None:
                continue
            lines = [norm for _, norm in counted(text)]
            for i in range(len(lines) - BLOCK_LINES + 1):
                self.blocks.setdefault(_digest(tuple(lines[i : i + BLOCK_LINES])), name)
            for norm in lines:
                if len(norm) >= PROSE_LINE_CHARS:
                    self.prose.setdefault(norm, name)

    def copies_in(self, path: Path, shown: str) -> list[str]:
        """Where the repository file ``path`` repeats an upstream file, one line per finding."""
        found: list[str] = []
        digest = hashlib.sha256(path.read_bytes()).digest()
        if digest in self.files:
            return [f"{shown}: the same bytes as upstream {self.files[digest]}"]
        text = _text(path)
        if text is None:
            return found
        lines = list(counted(text))
        reported_until = 0
        for i in range(len(lines) - BLOCK_LINES + 1):
            window = lines[i : i + BLOCK_LINES]
            source = self.blocks.get(_digest(tuple(norm for _, norm in window)))
            if source is not None and window[0][0] > reported_until:
                found.append(
                    f"{shown}:{window[0][0]}: {BLOCK_LINES} lines as in upstream {source}"
                )
                reported_until = window[-1][0]
        for number, norm in lines:
            source = self.prose.get(norm)
            if source is not None and number > reported_until:
                found.append(f"{shown}:{number}: a line of prose as in upstream {source}")
        return found


def repository_files() -> list[str]:
    """The files the repository holds: tracked, and untracked ones git does not ignore."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("git cannot list the repository's files here")
    return sorted(name for name in listed.split("\0") if name and (ROOT / name).is_file())


def test_no_upstream_file_or_block_in_the_repository() -> None:
    if not SHARED_UPSTREAM.is_dir():
        pytest.skip("../shared/reference/upstream/ is not here: nothing to compare against")
    upstream = Upstream(SHARED_UPSTREAM)
    findings = [
        finding
        for name in repository_files()
        for finding in upstream.copies_in(ROOT / name, name)
    ]
    assert findings == [], "copied from upstream:\n" + "\n".join(findings)


def test_the_detector_finds_a_pasted_block_however_it_is_quoted(tmp_path: Path) -> None:
    # The detector itself, on made-up text: a commented YAML block pasted into a Python string
    # list with other indentation and quotes is still the block; the same keys with one-token
    # values (facts: a key and its value) are not.
    source = tmp_path / "upstream"
    source.mkdir()
    (source / "values.yaml").write_text(
        "scheduler:\n"
        "  # how often the scheduler looks at pending work again\n"
        "  schedulePeriodSeconds: 5\n"
        "  # the queues are read again on this interval as well\n"
        "  resyncIntervalForQueues: every ten minutes\n"
        "  leaderElectionNamespace: the namespace of the release\n"
        "  description: the long explanation of a field that a person wrote upstream, far "
        "longer than eighty characters\n"
    )
    upstream = Upstream(source)
    pasted = tmp_path / "pasted.py"
    pasted.write_text(
        "LINES = [\n"
        '    "# how often the scheduler looks at pending work again",\n'
        '    "schedulePeriodSeconds: 5",\n'
        '    "# the queues are read again on this interval as well",\n'
        "    'resyncIntervalForQueues: every ten minutes',\n"
        '    "leaderElectionNamespace: the namespace of the release",\n'
        "]\n"
    )
    assert upstream.copies_in(pasted, "pasted.py") == [
        "pasted.py:2: 4 lines as in upstream values.yaml"
    ]
    prose = tmp_path / "schema.json"
    prose.write_text(
        '  {"description": "the long explanation of a field that a person wrote upstream, far '
        'longer than eighty characters"}\n'.replace('{"description": ', "description: ")
    )
    assert upstream.copies_in(prose, "schema.json") == [
        "schema.json:1: a line of prose as in upstream values.yaml"
    ]
    own = tmp_path / "own.yaml"
    own.write_text(
        "scheduler:\n  schedulePeriodSeconds: 5\n  resyncIntervalForQueues: 10m\n"
        "  leaderElectionNamespace: kai-scheduler\n  enabled: true\n"
    )
    assert upstream.copies_in(own, "own.yaml") == []
    same = tmp_path / "same.yaml"
    same.write_bytes((source / "values.yaml").read_bytes())
    assert upstream.copies_in(same, "same.yaml") == [
        "same.yaml: the same bytes as upstream values.yaml"
    ]


def test_no_upstream_source_or_copy_folder_in_the_repository() -> None:
    # Needs no upstream folder: the kinds of file the project never writes itself. Go sources
    # and Helm templates are read upstream and only their facts kept; tests/upstream/ held
    # verbatim copies until the project kept its own facts tables instead.
    files = repository_files()
    assert [name for name in files if name.endswith(".go")] == []
    assert [name for name in files if name.startswith("tests/upstream/")] == []
    assert [name for name in files if "/templates/" in name and name.endswith(".tpl")] == []
