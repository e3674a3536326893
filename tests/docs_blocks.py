"""The commands the documentation shows, read from its Markdown (a helper, not collected).

What counts as a shown command, and how shown output is compared (the one convention the docs
follow, stated in docs/commands.md, Conventions):

- A fenced block whose first line starts with ``$ `` is a **session**: every line starting with
  ``$ `` is a command, run in a shell in the block's scene (tests/docs_scenes.py), and the lines
  after it, up to the next command, are its output as shown, stdout and stderr as one terminal
  shows them.
- A line that is exactly ``...`` in a shown output means "lines left out here" (zero or more);
  every other line must be in the real output, in order, and the lines between two ``...``
  together. Without a ``...`` first, the output starts with the first shown line; without one
  last, it ends with the last.
- A block that starts ``usage: gpupool ...`` is a **usage**: the lines ``gpupool ... --help``
  prints before its first blank line.
- A ``sh`` (or ``bash``) block is a **script**: each line that is not a comment is a command that
  must exit 0 in its scene; it shows no output.

Blocks of other languages (``yaml``, ``json``, ``csv``) and fenced text without a command
(excerpts, file contents) are not commands.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path

ELLIPSIS = "..."
PROMPT = "$ "
USAGE = " --help"  # the command a usage block is the first paragraph of
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,})(?P<lang>[\w+-]*)\s*$")


@dataclass
class Step:
    """One command of a block and the output lines the docs show for it."""

    command: str
    shown: list[str] = field(default_factory=list)


@dataclass
class Block:
    """A fenced block of commands: where it is (0-based lines of its content) and its steps."""

    path: Path
    first: int  # the first content line (after the opening fence)
    end: int  # the closing fence's line
    indent: str
    lang: str
    steps: list[Step]

    @property
    def kind(self) -> str:
        if self.lang in ("sh", "bash"):
            return "script"
        return "usage" if self.steps[0].command.endswith(USAGE) else "session"

    @property
    def where(self) -> str:
        return f"{self.path.name}:{self.first}"


def _steps(lines: list[str], lang: str) -> list[Step] | None:
    if lang in ("sh", "bash"):
        return [Step(line.strip()) for line in lines
                if line.strip() and not line.lstrip().startswith("#")]
    if not lang and lines and lines[0].startswith("usage: gpupool"):
        words = lines[0].split()[1:]
        command = words[:next(i for i, w in enumerate([*words, "["]) if not w.isalpha())]
        return [Step(" ".join(command) + USAGE, list(lines))]
    if lang or not lines or not lines[0].startswith(PROMPT):
        return None
    steps: list[Step] = []
    for line in lines:
        if line.startswith(PROMPT):
            steps.append(Step(line[len(PROMPT):]))
        else:
            steps[-1].shown.append(line)
    return steps


def blocks(path: Path) -> list[Block]:
    """The command blocks of one Markdown file, in file order."""
    text = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(text):
        opening = _FENCE.match(text[i])
        if opening is None:
            i += 1
            continue
        indent, fence, lang = opening["indent"], opening["fence"], opening["lang"]
        j = i + 1
        while j < len(text) and text[j].strip() != fence:
            j += 1
        content = [line[len(indent):] if line.startswith(indent) else line
                   for line in text[i + 1:j]]
        steps = _steps(content, lang)
        if steps:
            found.append(Block(path, i + 1, j, indent, lang, steps))
        i = j + 1
    return found


def _segments(shown: list[str]) -> tuple[list[list[str]], bool, bool]:
    """The shown lines between ``...`` lines, and whether the output is open at each end."""
    segments: list[list[str]] = [[]]
    for line in shown:
        if line == ELLIPSIS:
            segments.append([])
        else:
            segments[-1].append(line)
    open_start, open_end = len(segments[0]) == 0 and len(segments) > 1, len(segments[-1]) == 0
    open_end = open_end and len(segments) > 1
    return [s for s in segments if s], open_start, open_end


def _find(lines: list[str], segment: list[str], start: int) -> int:
    for k in range(start, len(lines) - len(segment) + 1):
        if lines[k:k + len(segment)] == segment:
            return k
    return -1


def matches(shown: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` is ``shown`` with the lines its ``...`` lines stand for."""
    segments, open_start, open_end = _segments(shown)
    if not segments:
        return open_start or not actual
    pos = 0
    for n, segment in enumerate(segments):
        last = n == len(segments) - 1
        if n == 0 and not open_start:
            at = 0 if actual[:len(segment)] == segment else -1
        elif last and not open_end:
            at = len(actual) - len(segment)
            at = at if at >= pos and actual[at:] == segment else -1
        else:
            at = _find(actual, segment, pos)
        if at < 0:
            return False
        pos = at + len(segment)
    return open_end or pos == len(actual)


def _mapper(old: list[str], new: list[str]) -> tuple[list[int], list[int]]:
    """For each old line, where it starts and ends in ``new`` (a line changed in place maps to
    its replacement; a line gone maps to an empty span)."""
    starts, ends = [0] * len(old), [0] * len(old)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for k in range(i1, i2):
            if tag == "equal":
                starts[k], ends[k] = j1 + k - i1, j1 + k - i1 + 1
            else:  # a line replaced maps to its likeliest new line; one deleted to nothing
                starts[k] = ends[k] = j1
        if tag == "replace":
            _closest(old, new, (i1, i2, j1, j2), starts, ends)
    return starts, ends


def _closest(old: list[str], new: list[str], spans: tuple[int, int, int, int],
             starts: list[int], ends: list[int]) -> None:
    """Map each old line of a replaced stretch, in order, to the most similar new line after
    the previous one's (at least half alike), or to nothing."""
    i1, i2, j1, j2 = spans
    cursor = j1
    for k in range(i1, i2):
        best, where = 0.5, -1
        for j in range(cursor, min(j2, cursor + 200)):
            ratio = difflib.SequenceMatcher(None, old[k], new[j], autojunk=False).ratio()
            if ratio > best:
                best, where = ratio, j
        if where >= 0:
            starts[k], ends[k], cursor = where, where + 1, where + 1
        else:
            starts[k] = ends[k] = cursor


def refreshed(shown: list[str], actual: list[str]) -> list[str]:
    """``shown`` brought up to date with ``actual``, keeping its ``...`` where they were.

    Without ``...`` it is the whole output. Otherwise each shown stretch is mapped onto the new
    output by a line diff: lines changed in place, added inside a stretch or gone are taken
    from the new output; lines added at a stretch's edge belong to what ``...`` leaves out,
    except at an end that has no ``...``. Review the change (git diff) as for a golden file.
    """
    if ELLIPSIS not in shown:
        return list(actual)
    segments, open_start, open_end = _segments(shown)
    if not segments:
        return list(shown)
    old = [line for segment in segments for line in segment]
    starts, ends = _mapper(old, actual)
    out: list[str] = [ELLIPSIS] if open_start else []
    k, pos = 0, 0
    for n, segment in enumerate(segments):
        a, b = k, k + len(segment)
        k = b
        lo = 0 if n == 0 and not open_start else max(pos, min(starts[a:b]))
        hi = len(actual) if n == len(segments) - 1 and not open_end else max(ends[a:b])
        hi = max(hi, lo)
        if n > 0:
            out.append(ELLIPSIS)
        out.extend(actual[lo:hi])
        pos = hi
    if open_end:
        out.append(ELLIPSIS)
    return out


def rewrite(path: Path, replacements: dict[int, list[str]]) -> None:
    """Write new content lines into the blocks of ``path``: ``{first line: content}``."""
    text = path.read_text(encoding="utf-8").splitlines()
    for block in sorted(blocks(path), key=lambda b: b.first, reverse=True):
        if block.first in replacements:
            content = [block.indent + line if line else line
                       for line in replacements[block.first]]
            text[block.first:block.end] = content
    path.write_text("\n".join(text) + "\n", encoding="utf-8")


def content(steps: list[Step]) -> list[str]:
    """A block's lines as the docs write them."""
    if len(steps) == 1 and steps[0].command.endswith(USAGE):
        return list(steps[0].shown)
    lines: list[str] = []
    for step in steps:
        lines.append(PROMPT + step.command)
        lines.extend(step.shown)
    return lines
