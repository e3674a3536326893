"""YAML syntax errors in gpupool's words: a summary and hint of its own, the line, the column.

The parser messages recognised are PyYAML's (yaml/scanner.py, yaml/parser.py, yaml/reader.py in
PyYAML 6.0.x): each case below is text that makes PyYAML raise one of them.
"""

from __future__ import annotations

import pytest

from gpupool.spec.diagnostics import format_text
from gpupool.spec.validate import validate_text

# text, (line, column) of the diagnostic, its summary
CASES = [
    ("pools:\n  - name: p\n   nodes: 1\n", (3, 4), "indentation does not match"),
    ("a:\n  b: 1\n c: 2\n", (3, 2), "indentation does not match"),
    ("a:\n  - 1\n  b: 2\n", (3, 3), "indentation does not match"),
    ("a: [g6\nb: 1\n", (1, 4), "list in [brackets] is not closed"),
    ("a: {b: 1\nc: 2\n", (1, 4), "mapping in {braces} is not closed"),
    ("a: b: c\n", (1, 5), "unexpected ':' in a value"),
    ("a:\n\tb: 1\n", (2, 1), "tab character in indentation"),
    ("a: 1\nb\nc: 2\n", (2, 1), "key without ':'"),
    ('a: "abc\n', (1, 4), "quoted value is never closed"),
    ("a: @x\n", (1, 4), "character cannot start a value"),
    ('a: "\\q"\n', (1, 6), "unknown escape in a double-quoted value"),
    ("a: *\n", (1, 4), "anchor or alias without a name"),
    ("a: |x\n  b\n", (1, 5), "bad block scalar header"),
    ("a: 1\x00\n", (1, 5), "character not allowed"),
]

#: The parser's own vocabulary, which a user editing a stack file should not have to read.
PARSER_WORDS = ("<block", "<stream", "while parsing", "while scanning", "expected ',' or")


@pytest.mark.parametrize(("text", "where", "summary"), CASES, ids=[c[2] for c in CASES])
def test_syntax_error_says_what_and_where_with_a_hint(
    text: str, where: tuple[int, int], summary: str
) -> None:
    """One yaml.syntax diagnostic in gpupool's words, on the right line and column."""
    (d,) = validate_text(text, "f.yaml").diagnostics
    assert d.code == "yaml.syntax"
    assert d.summary == f"YAML syntax error: {summary}"
    assert d.range is not None
    assert (d.range.start.line, d.range.start.column) == where
    assert d.detail.startswith(f"Line {where[0]}, column {where[1]}")
    assert not any(w in d.summary + d.detail for w in PARSER_WORDS)


def test_syntax_error_shows_the_line_with_a_caret_under_the_column() -> None:
    """The offending line is quoted and a caret marks the column the position names."""
    d = validate_text("a: 1\nb: x: y\n", "f.yaml").diagnostics[0]
    *_, line, caret = format_text(d).splitlines()
    assert line == "  b: x: y"
    assert caret.index("^") == line.index(":", line.index("x"))


def test_a_huge_line_is_quoted_around_the_column_only() -> None:
    """A hostile one-line file does not come back whole in the message."""
    text = "a: [" + "x, " * 5_000 + "\nb: 1\n"
    d = validate_text(text, "f.yaml").diagnostics[0]
    assert d.code == "yaml.syntax"
    assert len(d.detail) < 600
