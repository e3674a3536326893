"""The README a newcomer reads (issue 36 item 6), and the links of every doc.

The README stays under 150 lines: what gpupool is, pictures of its output drawn by a script,
the two set-up commands, a table of every command, the CI snippet and links. The tour and the
limits and security live in docs/tour.md and docs/security.md. Every command the docs show is
run by tests/test_docs_commands.py.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpupool.cli import run
from tests import docs_blocks, docs_commands
from tests.paths import FIXTURES, ROOT, TEMPLATES

README = ROOT / "README.md"
_LINK = re.compile(r"\]\(([^)\s]+)\)|<img src=\"([^\"]+)\"")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"^(`{3,}).*?^\1", "", text, flags=re.M | re.S)  # no headings in code
    explicit = set(re.findall(r'<a (?:id|name)="([^"]+)"', text))
    return explicit | {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)}


def test_the_readme_is_short() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) < 150


def test_the_readme_has_exactly_the_two_setup_commands() -> None:
    """The two commands a newcomer pastes; .ci/run runs both in a fresh virtualenv
    (tests/hardening/test_supply.py)."""
    scripts = [b for b in docs_blocks.blocks(README) if b.kind == "script"]
    assert [[s.command for s in b.steps] for b in scripts] == [
        ["pip install -e . && gpupool plan stacks/examples/azure-kai-fair.yaml"],
        ["pip install -e '.[dev]' && python -m pytest"],
    ]


def test_the_readme_pictures_exist_and_are_drawn_by_the_script() -> None:
    text = README.read_text(encoding="utf-8")
    pictures = re.findall(r'<img src="(docs/images/[\w-]+\.png)"', text)
    assert pictures == ["docs/images/plan.png", "docs/images/plan-comment.png"]
    script = (ROOT / "scripts" / "render_pictures.py").read_text(encoding="utf-8")
    for picture in pictures:
        assert (ROOT / picture).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert Path(picture).name in script


def test_the_command_table_names_every_command() -> None:
    """Each command of ``gpupool --help`` has a row in the README's table."""
    help_text = subprocess.run([sys.executable, "-m", "gpupool", "--help"], capture_output=True,
                               text=True, check=True, cwd=ROOT).stdout
    commands = re.findall(r"^    ([a-z]+)\b", help_text, flags=re.M)
    assert len(commands) > 10
    rows = [line for line in README.read_text(encoding="utf-8").splitlines()
            if line.startswith("| `gpupool ")]
    for command in commands:
        assert any(re.search(rf"`(gpupool )?{command}\b", row.split(" | ")[0]) for row in rows), \
            f"no row of the README's command table names {command}"


def test_the_ci_snippet_is_the_bundled_workflow() -> None:
    """The README's YAML lines are the plan-comment workflow's, in order (``...``: left out)."""
    text = README.read_text(encoding="utf-8")
    snippet = re.search(r"^```yaml\n(.*?)^```", text, flags=re.M | re.S)
    assert snippet is not None
    shown = snippet.group(1).splitlines()
    workflow = (TEMPLATES / "ci" / "github-plan-comment.yml").read_text().splitlines()
    assert docs_blocks.matches(["...", *shown, "..."], workflow)


@pytest.mark.parametrize("doc", docs_commands.DOCS, ids=lambda p: p.name)
def test_every_relative_link_and_anchor_resolves(doc: Path) -> None:
    broken = []
    text = re.sub(r"^(`{3,}).*?^\1", "", doc.read_text(encoding="utf-8"), flags=re.M | re.S)
    for match in _LINK.finditer(re.sub(r"`[^`\n]*`", "", text)):
        target = match.group(1) or match.group(2)
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        path = (doc.parent / file).resolve() if file else doc
        missing = not path.exists()
        if missing or (anchor and path.suffix == ".md" and anchor not in _anchors(path)):
            broken.append(target)
    assert not broken, f"{doc.name} links to what is not there: {broken}"


def test_the_tour_validate_sample_is_what_gpupool_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The tour's validate output, byte for byte: diagnostics (stderr) in file order, then the
    verdict (this is tests/fixtures/invalid/schema-and-gpu-errors.yaml as stacks/prod.yaml)."""
    tour = (ROOT / "docs" / "tour.md").read_text(encoding="utf-8")
    start = tour.index("## 2. Validate")
    sample = re.compile(r"^```\n(.*?)^```$", re.M | re.S).search(tour, start)
    assert sample is not None
    command, *shown = sample.group(1).splitlines(keepends=True)
    assert command == "$ gpupool validate stacks/prod.yaml\n"
    (tmp_path / "stacks").mkdir()
    shutil.copy(FIXTURES / "invalid" / "schema-and-gpu-errors.yaml", tmp_path / "stacks/prod.yaml")
    monkeypatch.chdir(tmp_path)
    assert run(["validate", "stacks/prod.yaml"]) == 1
    printed = capsys.readouterr()
    assert printed.err + printed.out == "".join(shown)
