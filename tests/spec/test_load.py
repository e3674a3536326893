"""The loader: source positions, duplicate keys, and hostile input becoming diagnostics."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import yaml

from gpupool.errors import InputError
from gpupool.spec import load
from gpupool.spec.validate import validate_file, validate_text


def codes(text: str) -> list[str]:
    return [d.code for d in validate_text(text, "f.yaml").diagnostics]


def test_positions_are_one_based_and_point_at_values_and_keys() -> None:
    """Every value and key is mapped to its 1-based line and column."""
    doc, diags = load.parse("a: 1\nb:\n  c: [x, y]\n", "f.yaml")
    assert doc is not None and not diags
    assert doc.values[("b", "c")].start.line == 3
    assert doc.values[("b", "c")].start.column == 6
    assert doc.values[("b", "c", 1)].start.column == 10
    assert doc.keys[("b", "c")].start.column == 3


def test_duplicate_key_is_an_error_on_the_second_occurrence() -> None:
    """PyYAML keeps the last duplicate silently; gpupool reports it where it repeats."""
    _doc, diags = load.parse("a: 1\nb: 2\na: 3\n", "f.yaml")
    assert [d.code for d in diags] == ["yaml.duplicate-key"]
    assert diags[0].range.start.line == 3
    assert "first on line 1" in diags[0].detail


def test_merge_keys_and_anchors_are_supported() -> None:
    """Anchors, aliases and '<<' merges behave as in PyYAML, explicit keys winning."""
    doc, diags = load.parse("x: &x {a: 1, b: 2}\ny:\n  <<: *x\n  b: 3\n", "f.yaml")
    assert not diags and doc is not None
    assert doc.data["y"] == {"a": 1, "b": 3}


def test_alias_bomb_is_refused_quickly() -> None:
    """A billion-laughs document is a diagnostic, found in well under a second."""
    lines = ["a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    for i in range(1, 10):
        prev, cur = chr(96 + i), chr(97 + i)
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 10) + "]")
    start = time.process_time()
    assert codes("\n".join(lines)) == ["yaml.too-large"]
    assert time.process_time() - start < 5


def test_deep_nesting_is_refused_without_recursion_error() -> None:
    """10,000 levels of nesting is a diagnostic, not a RecursionError."""
    assert codes("a: " + "[" * 10_000 + "]" * 10_000) == ["yaml.too-deep"]
    assert codes("a:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 200))) == [
        "yaml.too-deep"
    ]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "file.empty"),
        ("   \n# only a comment\n", "file.empty"),
        ("- a\n- b\n", "yaml.not-a-mapping"),
        ("just a string\n", "yaml.not-a-mapping"),
        ("a: [\n", "yaml.syntax"),
        ("a: 1\n---\nb: 2\n", "yaml.multiple-documents"),
        ("a: !!python/object:os.system x\n", "yaml.unsupported-tag"),
        ("a: *nope\n", "yaml.unknown-alias"),
        ("[a, b]: 1\n", "yaml.non-string-key"),
        ("a: 1\x00\n", "yaml.syntax"),
    ],
)
def test_bad_yaml_becomes_one_diagnostic(text: str, code: str) -> None:
    """Broken or unsupported YAML is reported, never raised."""
    assert code in codes(text)


def test_non_utf8_bytes_are_located(tmp_path: Path) -> None:
    """Invalid UTF-8 is reported with the line and column of the first bad byte."""
    f = tmp_path / "s.yaml"
    f.write_bytes(b"a: 1\nb: caf\xe9\n")
    [d] = validate_file(f).diagnostics
    assert d.code == "file.not-utf8"
    assert (d.range.start.line, d.range.start.column) == (2, 7)


def test_binary_file_is_a_diagnostic(tmp_path: Path) -> None:
    """A binary file is not a crash."""
    f = tmp_path / "s.yaml"
    f.write_bytes(bytes(range(256)) * 4)
    result = validate_file(f)
    assert not result.valid


def test_oversized_file_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    """Files over the limit get one diagnostic."""
    f = tmp_path / "big.yaml"
    f.write_bytes(b"# " + b"x" * (load.MAX_BYTES + 10))
    assert [d.code for d in validate_file(f).diagnostics] == ["file.too-large"]


def test_directory_fifo_missing_and_symlink_loop_are_input_errors(tmp_path: Path) -> None:
    """Things that are not regular files are one clear error, and a FIFO never blocks."""
    with pytest.raises(InputError, match="is a directory"):
        validate_file(tmp_path)
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        validate_file(fifo)
    with pytest.raises(InputError, match="no such file"):
        validate_file(tmp_path / "missing.yaml")
    loop = tmp_path / "loop.yaml"
    loop.symlink_to(loop)
    with pytest.raises(InputError, match="cannot be read"):
        validate_file(loop)


class _LibyamlRefusesDeepNesting(yaml.SafeLoader):
    """Stands in for libyaml 0.2.6 (PyYAML 6.0.4's wheels), which refuses 1,000 levels itself.

    yaml/libyaml commit 51843fe ("Limit depth of nesting by default", in 0.2.6): the scanner
    raises "while increasing flow level / exceeded maximum nesting depth" before it yields the
    events, so gpupool's composer never reaches its own MAX_DEPTH on that loader.
    """

    def get_event(self) -> yaml.Event:
        mark = yaml.Mark("<unicode string>", 1002, 0, 1002, None, None)
        raise yaml.scanner.ScannerError(
            "while increasing flow level", mark, "exceeded maximum nesting depth", mark
        )

    def check_event(self, *choices: type) -> bool:
        return bool(self.get_event())


def test_deep_nesting_is_too_deep_whatever_libyaml_refuses_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A libyaml that stops deep nesting itself still gives gpupool's yaml.too-deep."""
    monkeypatch.setattr(load, "_Loader", _LibyamlRefusesDeepNesting)
    assert codes("a: " + "[" * 10_000 + "]" * 10_000) == ["yaml.too-deep"]
    # a real syntax error is still one, found again by the pure-Python parser
    assert codes("a: [\n") == ["yaml.syntax"]


@pytest.mark.parametrize(
    ("tag", "value"),
    [
        # PyYAML's SafeConstructor (lib/yaml/constructor.py) raises KeyError for a bool it does
        # not know and AttributeError/TypeError for a timestamp its pattern does not match
        ("bool", "perhaps"),
        ("timestamp", "not-a-date"),
        ("timestamp", "2024-13-45"),
        ("int", "twelve"),
        ("float", "one point five"),
        ("binary", "not base64 %%%"),
    ],
)
def test_an_explicit_tag_with_a_bad_value_is_a_diagnostic_on_its_line(
    tag: str, value: str
) -> None:
    """``!!bool perhaps`` is an ordinary diagnostic where it stands, never an internal error."""
    text = f"apiVersion: gpupool.io/v1\nkind: GpuPoolStack\nx: 1\nbad: !!{tag} {value}\n"
    _doc, diags = load.parse(text, "f.yaml")
    assert [(d.code, d.range.start.line) for d in diags] == [("yaml.bad-scalar", 4)]
    assert value in diags[0].detail and f"!!{tag}" in diags[0].detail


@pytest.mark.parametrize(
    "value", [".nan", ".NaN", ".inf", "-.inf", "+.Inf", "1.0e+400", "-1.5e+999"]
)
def test_nan_and_infinities_are_refused_where_they_stand(value: str) -> None:
    """JSON, and so the stack schema, has no NaN or infinity; YAML has (``.nan``, ``.inf``)."""
    _doc, diags = load.parse(f"a: 1\nb: [2, {value}]\n", "f.yaml")
    assert [(d.code, d.range.start.line) for d in diags] == [("yaml.not-finite", 2)]


def test_the_same_text_is_read_by_its_own_style_and_tag_every_time() -> None:
    """Scalars' tags and values are remembered per text; quoting and tags still decide each one."""
    text = ('a: 1\nb: "1"\nc: 1\nd: !!str 1\ne: !!float 1\nf: !!int x\ng: !!int x\nh: yes\n'
            'i: "yes"\n')
    doc, diags = load.parse(text, "f.yaml")
    assert doc is not None
    assert doc.data == {"a": 1, "b": "1", "c": 1, "d": "1", "e": 1.0, "f": "x", "g": "x",
                        "h": True, "i": "yes"}
    assert type(doc.data["e"]) is float
    # each bad value is reported where it is, the second one too
    assert [(d.code, d.range.start.line) for d in diags] == [("yaml.bad-scalar", 6),
                                                             ("yaml.bad-scalar", 7)]


def test_the_source_map_is_a_mapping_of_every_value_and_key() -> None:
    """``Document.values`` and ``keys`` hold every path, each read as a 1-based range."""
    doc, _ = load.parse("a: [x, y]\nb: {c: 1}\n", "f.yaml")
    assert doc is not None
    assert set(doc.values) == {(), ("a",), ("a", 0), ("a", 1), ("b",), ("b", "c")}
    assert len(doc.keys) == 3 and ("b", "c") in doc.keys and ("a", 0) not in doc.keys
    where = doc.keys[("b", "c")]
    assert (where.filename, where.start.line, where.start.column, where.end.column) == (
        "f.yaml", 2, 5, 6)
    assert doc.values.get(("z",)) is None
