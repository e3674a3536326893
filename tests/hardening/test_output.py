"""Output that a terminal, a CI log or a pull request would turn into something else.

Hostile values go into a stack file where the schema lets any text through (the region of a
cloud whose regions gpupool does not list, a key,
the file's own name): terminal escapes (ESC, BEL, C1 controls), bidirectional overrides, newlines
followed by GitHub Actions workflow commands (``::error::``, ``::add-mask::``, the legacy
``##[``; actions/runner ``src/Runner.Common/ActionCommand.cs`` parses a command where a line,
after its leading white space, starts with ``::``, and ``##[`` anywhere in it), and markdown
that would forge the plan comment (a bot marker, "No changes", an image, an unterminated HTML
comment). Every command and format is run through ``gpupool.cli.run``; text and markdown must
carry none of it raw, JSON must carry it exactly (as JSON escapes), markdown must keep the
value as literal text, and the comment must stay under its cap.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from gpupool.cli import run
from gpupool.plan import PlanResult
from gpupool.usecases.plan import plan
from gpupool.views.plan_markdown import MARKDOWN_LIMIT, format_markdown, marker
from tests.paths import EXAMPLES
from tests.stacks import load_stack

EXAMPLE = EXAMPLES / "aws-inference-l4.yaml"
# Volcengine's regions are not listed (no confirmed source), so its region is the free-text field
# a hostile value still reaches the plan through; AWS, GCP and Azure regions must be known ones.
REGION_FREE = EXAMPLES / "volcengine-a10.yaml"
HOSTILE = (
    "us-east-1\x1b]0;owned\x07\x1b[2J\x9b31m\u202e\n::add-mask::us\n  ::error title=x::forged"
    "\n##[error]legacy <!-- gpupool-plan: other --> **No changes.** ![x](https://e.example/i.png)"
    " [link](https://e.example) <details><!--"
)
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _stack(tmp_path: Path, region: str, name: str = "stack.yaml") -> Path:
    text = REGION_FREE.read_text("utf-8")
    assert "region: cn-beijing" in text
    text = text.replace("region: cn-beijing", f"region: {json.dumps(region)}")
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _cli(capfd: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = run(list(argv))
    out = capfd.readouterr()
    return code, out.out, out.err


def _assert_inert(text: str, where: str) -> None:
    assert not RAW.search(text), f"raw control character in {where}: {RAW.search(text)!r}"
    for line in text.splitlines():
        assert not line.lstrip().startswith("::"), f"workflow command in {where}: {line!r}"
        assert "##[" not in line, f"legacy workflow command in {where}: {line!r}"


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_plan_output_carries_no_terminal_escape_or_workflow_command(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], fmt: str
) -> None:
    stack = _stack(tmp_path, HOSTILE)
    code, out, err = _cli(capfd, "plan", "--format", fmt, str(stack))
    assert code == 0, err
    _assert_inert(out, f"plan --format {fmt} (stdout)")
    _assert_inert(err, f"plan --format {fmt} (stderr)")
    if fmt == "json":
        json.loads(out)  # still a JSON document


def test_keys_and_file_names_stay_on_their_line(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """An unknown key with a newline, in a file whose name holds ESC and a newline."""
    name = "st\x1b[31mack\n::error::x.yaml"
    text = EXAMPLE.read_text("utf-8").replace(
        "kind: GpuPoolStack\n", 'kind: GpuPoolStack\n"bad\\u0007\\n::warning::key": 1\n'
    )
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code, out, err = _cli(capfd, "validate", str(path))
    assert code == 1
    _assert_inert(out + err, "validate")
    diag = [line for line in err.splitlines() if "[schema.unknown-key]" in line]
    assert len(diag) == 1 and "\\x0a::warning::key" in diag[0] and "\\x1b[31m" in diag[0]
    code, out, _ = _cli(capfd, "validate", "--format", "json", str(path))
    keys = [d for d in json.loads(out)["diagnostics"] if d["code"] == "schema.unknown-key"]
    assert keys and "bad\a\n::warning::key" in keys[0]["summary"]


def _html(markdown: str) -> str:
    """Render markdown as GitHub does (cmark-gfm with its extensions, raw HTML kept)."""
    cmarkgfm = pytest.importorskip("cmarkgfm")
    from cmarkgfm.cmark import Options

    return str(cmarkgfm.github_flavored_markdown_to_html(markdown,
                                                         options=Options.CMARK_OPT_UNSAFE))


def _assert_literal(markdown: str, ours: int) -> None:
    """The rendered comment has gpupool's own comment and ``ours`` folds; nothing from values."""
    html = _html(markdown)
    assert html.count("<!--") == 1 and markdown.startswith("<!-- gpupool-")
    assert "<img" not in html and "<a " not in html
    assert html.count("<details>") == ours and "<strong>No changes.</strong>" not in html
    assert "&lt;!-- gpupool-plan: other --&gt;" in html or "other" not in markdown


def _planned(region: str) -> PlanResult:
    """The AWS example's plan, its region replaced by ``region``.

    AWS regions are validated against the catalog's list now, so a hostile one stops at
    validation; the view must still keep any region it is given literal and within the cap.
    """
    stack = load_stack(EXAMPLE)
    return dataclasses.replace(plan(EXAMPLE, stack, None), region=region)


@pytest.mark.cloud_sdks  # cmarkgfm is a dev-only dependency
def test_markdown_keeps_a_hostile_region_literal() -> None:
    """No second marker, no forged verdict, no image, link, HTML or comment from a value.

    Rendered with cmark-gfm, GitHub's own fork of cmark (github/cmark-gfm), as a comment is.
    """
    out = format_markdown(_planned(HOSTILE))
    _assert_literal(out, ours=1)
    assert "forged" in _html(out)  # the value is still there, as text


@pytest.mark.cloud_sdks  # cmarkgfm is a dev-only dependency
def test_a_hostile_stack_file_name_stays_inside_the_one_marker() -> None:
    """The marker names the stack file as given: no name ends it early or forges another."""
    out = format_markdown(dataclasses.replace(_planned("us-east-1"), stack_file=HOSTILE))
    _assert_inert(out, "the marker of a hostile file name")
    first = out.split("\n")[0]
    assert first.startswith("<!-- gpupool-plan: ") and first.count("-->") == 1
    html = _html(out)  # one hidden comment, all of the name inside it, nothing rendered from it
    assert html.count("<!--") == 1 and html.startswith(first + "\n")
    assert "<img" not in html and "<a " not in html and html.count("<details>") == 1
    assert "<strong>No changes.</strong>" not in html and "forged" not in html[len(first):]


def test_an_unknown_hostile_region_stops_at_validation(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    text = EXAMPLE.read_text("utf-8").replace("region: us-east-1",
                                              f"region: {json.dumps(HOSTILE)}")
    path = tmp_path / "stack.yaml"
    path.write_text(text, encoding="utf-8")
    code, out, err = _cli(capfd, "plan", "--format", "markdown", str(path))
    assert code == 1 and "[catalog.unknown-region]" in err
    _assert_inert(out + err, "plan of an unknown region")


@pytest.mark.cloud_sdks
def test_drift_markdown_escapes_skip_reasons(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A source's skip reason quotes outside text (here the KUBECONFIG path) into markdown."""
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "missing <!-- x ![i](https://e/i.png)"))
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    _code, out, err = _cli(capfd, "drift", "--format", "markdown", str(EXAMPLE))
    _assert_inert(out + err, "drift --format markdown")
    _assert_literal(out, ours=0)


def test_the_comment_cap_holds_for_any_value() -> None:
    """A 70,000-character region made a 71,489-character comment although the cap is 65,000."""
    out = format_markdown(_planned("r" * 70_000))
    assert len(out) <= MARKDOWN_LIMIT
    assert out.startswith(marker(str(EXAMPLE)))


def test_the_cap_holds_however_small() -> None:
    """The cap is on the whole body, whatever part of it is long."""
    result = _planned("r" * 20_000)
    for limit in (2_000, 5_000, 20_000):
        text = format_markdown(result, limit)
        assert len(text) <= limit
        assert text.startswith(marker(str(result.stack_file)))
