"""Reading a stack file: bytes -> YAML data plus a source map, with every problem a diagnostic.

This module owns turning a file into a ``Document``. It composes the YAML from parser events
itself (iteratively, never recursively) so that it can, in one pass: remember where every value
and key came from, catch duplicate keys (PyYAML silently keeps the last one), and refuse alias
bombs, absurd nesting and oversized files with a diagnostic instead of a hang or a crash.

Limits (documented in the README): files up to ``MAX_BYTES``; nesting up to ``MAX_DEPTH``; at most
``MAX_NODES`` values and ``MAX_CHARS`` characters of keys and scalars after alias expansion (an
anchored 1 MiB string aliased a thousand times is a small file and a gigabyte of data).
"""

from __future__ import annotations

import math
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Any

import yaml

from gpupool.errors import InputError
from gpupool.files import TooLargeError, UnsafePathError, read_regular
from gpupool.spec import syntax
from gpupool.spec.diagnostics import Diagnostic, Path, Pos, Range, error

MAX_BYTES = 8 * 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 200_000  # twice the 1,000-pool, 4,000-tenant benchmark stack (97,509 values)
MAX_CHARS = MAX_BYTES

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_RESOLVER = yaml.resolver.Resolver()
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_COLLECTION_TAGS = {None, "!", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"}


@dataclass
class Document:
    """A loaded stack file: its data and where each part of it came from."""

    filename: str
    data: Any
    values: dict[Path, Range] = field(default_factory=dict)
    keys: dict[Path, Range] = field(default_factory=dict)

    def locate(self, path: Path, anchor: str = "value") -> Range | None:
        """Return the source range for ``path``: its value, its key, or its nearest ancestor."""
        if anchor == "key" and path in self.keys:
            return self.keys[path]
        p = tuple(path)
        while True:
            if p in self.values:
                return self.values[p]
            if not p:
                return None
            p = p[:-1]


class _Abort(Exception):
    """Stop composing: the diagnostic already says why."""


@dataclass
class _Frame:
    path: Path
    container: Any  # dict or list
    start: yaml.Mark
    anchor: str | None
    count_at_start: int
    key: Any = None
    key_range: Range | None = None
    has_key: bool = False
    bad_key: bool = False
    merges: list[tuple[Any, Range]] = field(default_factory=list)
    chars_at_start: int = 0


class _Composer:
    """Builds Python data and the source map from a stream of YAML events."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.diags: list[Diagnostic] = []
        self.values: dict[Path, Range] = {}
        self.keys: dict[Path, Range] = {}
        self.anchors: dict[str, tuple[Any, int, int]] = {}  # value, nodes, characters
        self.stack: list[_Frame] = []
        self.nodes = 0
        self.chars = 0
        self.root: Any = None
        self.documents = 0
        self.aborted = False
        self.syntax_error: yaml.YAMLError | None = None

    def range(self, start: yaml.Mark, end: yaml.Mark) -> Range:
        return Range(
            self.filename,
            Pos(start.line + 1, start.column + 1),
            Pos(end.line + 1, end.column + 1),
        )

    def fail(self, code: str, summary: str, detail: str, where: Range | None) -> None:
        self.diags.append(error(code, summary, detail, range=where))
        raise _Abort

    def count(self, n: int, where: Range, chars: int = 0) -> None:
        self.nodes += n
        self.chars += chars
        if self.nodes > MAX_NODES:
            self.fail(
                "yaml.too-large",
                "Document is too large",
                f"It expands to more than {MAX_NODES:,} values (aliases included); "
                "a stack file is never this large, so this looks like an alias bomb.",
                where,
            )
        if self.chars > MAX_CHARS:
            self.fail(
                "yaml.too-large",
                "Document is too large",
                f"Its keys and values expand to more than {MAX_CHARS // (1024 * 1024)} MiB of "
                "text (aliases included); a stack file is never this large, so this looks like "
                "an alias bomb.",
                where,
            )

    def child_path(self) -> Path:
        if not self.stack:
            return ()
        top = self.stack[-1]
        if isinstance(top.container, list):
            return (*top.path, len(top.container))
        if top.has_key:
            return (*top.path, top.key)
        return (*top.path, "<key>")

    def feed(self, event: yaml.Event) -> None:
        if isinstance(event, yaml.ScalarEvent):
            self.scalar(event)
        elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            self.start(event)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            self.end(event)
        elif isinstance(event, yaml.AliasEvent):
            self.alias(event)
        elif isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                self.fail(
                    "yaml.multiple-documents",
                    "More than one YAML document",
                    "A stack file holds exactly one stack; split the documents into files.",
                    self.range(event.start_mark, event.end_mark),
                )

    def scalar(self, ev: yaml.ScalarEvent) -> None:
        where = self.range(ev.start_mark, ev.end_mark)
        self.count(1, where, len(ev.value))
        tag = ev.tag
        if tag is None or tag == "!":
            tag = _STR if tag == "!" else _RESOLVER.resolve(yaml.ScalarNode, ev.value, ev.implicit)
        value: Any
        if tag == _STR:
            value = ev.value
        elif tag == _MERGE and self.stack and not self.stack[-1].has_key:
            value = _MergeKey()
        else:
            ctor = _CONSTRUCTOR.yaml_constructors.get(tag)
            if ctor is None or tag == _MERGE:
                self.diags.append(
                    error(
                        "yaml.unsupported-tag",
                        "Unsupported YAML tag",
                        f"The tag {tag!r} is not allowed in a stack file; remove it.",
                        range=where,
                    )
                )
                value = ev.value
            else:
                value = self.construct(ctor, tag, ev, where)
        if ev.anchor:
            self.anchors[ev.anchor] = (value, 1, len(ev.value))
        self.add(value, where)

    def construct(self, ctor: Any, tag: str, ev: yaml.ScalarEvent, where: Range) -> Any:
        """Build one tagged scalar; a value its tag cannot read is a diagnostic, never a crash.

        PyYAML's constructors fail in their own ways on a bad explicit tag (``!!bool perhaps``
        raises KeyError, ``!!timestamp not-a-date`` AttributeError or TypeError), and a float
        can be NaN or infinite (``.nan``, ``.inf``, ``1.0e+400``), which JSON, and so the
        schema, has no room for.
        """
        short = tag.replace("tag:yaml.org,2002:", "!!")
        try:
            value = ctor(_CONSTRUCTOR, yaml.ScalarNode(tag, ev.value, style=ev.style))
        except (yaml.YAMLError, ValueError, OverflowError, KeyError, AttributeError,
                TypeError, IndexError) as exc:
            known = isinstance(exc, (yaml.YAMLError, ValueError, OverflowError))
            reason = f" ({exc})" if known and str(exc) else ""
            self.diags.append(
                error(
                    "yaml.bad-scalar",
                    "Value cannot be read",
                    f"{ev.value!r} is not a valid {short} value{reason}; write the value "
                    "without the tag, or one the tag accepts.",
                    range=where,
                )
            )
            return ev.value
        if isinstance(value, float) and not math.isfinite(value):
            self.diags.append(
                error(
                    "yaml.not-finite",
                    "Number is not finite",
                    f"{ev.value!r} is {value!r}: NaN and infinities are YAML floats but not "
                    "numbers a stack file can hold (JSON has neither); write a finite number.",
                    range=where,
                )
            )
            return ev.value
        return value

    def start(self, ev: yaml.CollectionStartEvent) -> None:
        where = self.range(ev.start_mark, ev.end_mark)
        self.count(1, where)
        if ev.tag not in _COLLECTION_TAGS:
            self.diags.append(
                error(
                    "yaml.unsupported-tag",
                    "Unsupported YAML tag",
                    f"The tag {ev.tag!r} is not allowed in a stack file; remove it.",
                    range=where,
                )
            )
        if len(self.stack) >= MAX_DEPTH:
            self.fail(
                "yaml.too-deep",
                "Document is nested too deeply",
                f"Stack files nest at most {MAX_DEPTH} levels; this one goes deeper.",
                where,
            )
        container: Any = {} if isinstance(ev, yaml.MappingStartEvent) else []
        self.stack.append(
            _Frame(
                self.child_path(),
                container,
                ev.start_mark,
                ev.anchor,
                self.nodes,
                chars_at_start=self.chars,
            )
        )

    def end(self, ev: yaml.CollectionEndEvent) -> None:
        frame = self.stack.pop()
        where = self.range(frame.start, ev.end_mark)
        if isinstance(frame.container, dict):
            self.apply_merges(frame)
        if frame.anchor:
            self.anchors[frame.anchor] = (
                frame.container,
                self.nodes - frame.count_at_start,
                self.chars - frame.chars_at_start,
            )
        self.add(frame.container, where)

    def alias(self, ev: yaml.AliasEvent) -> None:
        where = self.range(ev.start_mark, ev.end_mark)
        if ev.anchor not in self.anchors:
            self.diags.append(
                error(
                    "yaml.unknown-alias",
                    "Unknown alias",
                    f"No anchor named {ev.anchor!r} appears before this alias.",
                    range=where,
                )
            )
            self.add(None, where)
            return
        value, weight, chars = self.anchors[ev.anchor]
        self.count(weight, where, chars)
        self.add(value, where)

    def apply_merges(self, frame: _Frame) -> None:
        mapping = frame.container
        for value, where in frame.merges:
            sources = value if isinstance(value, list) else [value]
            for src in sources:
                if not isinstance(src, dict):
                    self.diags.append(
                        error(
                            "yaml.bad-merge",
                            "Merge key needs a mapping",
                            "'<<' merges a mapping (or a list of mappings) into this one.",
                            range=where,
                        )
                    )
                    continue
                for k, v in src.items():
                    if k not in mapping:
                        mapping[k] = v
                        self.values.setdefault((*frame.path, k), where)

    def add(self, value: Any, where: Range) -> None:
        if not self.stack:
            self.root = value
            self.values[()] = where
            return
        top = self.stack[-1]
        if isinstance(top.container, list):
            self.values.setdefault((*top.path, len(top.container)), where)
            top.container.append(value)
            return
        if not top.has_key:
            top.has_key, top.key, top.key_range, top.bad_key = True, value, where, False
            if not isinstance(value, (str, _MergeKey)):
                top.bad_key = True
                top.key = (
                    str(value) if isinstance(value, (int, float, bool)) or value is None else "?"
                )
                self.diags.append(
                    error(
                        "yaml.non-string-key",
                        "Keys must be strings",
                        f"The key {value!r} is not a string; quote it or fix the indentation.",
                        range=where,
                    )
                )
            return
        key, key_range = top.key, top.key_range
        top.has_key, top.key = False, None
        if isinstance(key, _MergeKey):
            top.merges.append((value, where))
            return
        if top.bad_key:
            return
        path = (*top.path, key)
        if key in top.container:
            first = self.keys.get(path)
            line = f" (first on line {first.start.line})" if first else ""
            self.diags.append(
                error(
                    "yaml.duplicate-key",
                    f"Duplicate key '{key}'",
                    f"'{key}' appears twice in this mapping{line}; YAML readers differ on which "
                    "one wins, so gpupool refuses both. Keep one.",
                    path,
                    range=key_range,
                )
            )
            return
        top.container[key] = value
        if key_range is not None:
            self.keys[path] = key_range
        self.values.setdefault(path, where)


class _MergeKey:
    """Marks the YAML merge key ``<<`` while composing."""

    __slots__ = ()


def read_text(path: FsPath, name: str | None = None) -> tuple[str | None, list[Diagnostic]]:
    """Read a stack file as UTF-8 text, refusing things that are not regular files.

    Args:
        path: the file to read.
        name: how diagnostics name the file (default: the path as given).

    Raises:
        InputError: the path is missing, unreadable, or not a regular file.

    """
    name = name or str(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot be read ({exc.strerror or exc})") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"{name}: is a directory; give a stack file (.yaml)")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{name}: is not a regular file (a pipe or device?); give a stack file")
    try:
        # should the path become a FIFO after the check above, read_regular opens it without
        # waiting for a writer and checks what was actually opened
        raw = read_regular(FsPath(path), MAX_BYTES)
    except TooLargeError:
        return None, [_too_large(name)]
    except UnsafePathError:
        raise InputError(f"{name}: is not a regular file; give a stack file") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot be read ({exc.strerror or exc})") from None
    return decode(raw, name)


def _file_start(filename: str) -> Range:
    """Return the range of a whole-file problem: line 1, column 1."""
    return Range(filename, Pos(1, 1), Pos(1, 1))


def _too_large(filename: str) -> Diagnostic:
    return error(
        "file.too-large",
        "File is too large",
        f"Stack files are at most {MAX_BYTES // (1024 * 1024)} MiB.",
        range=_file_start(filename),
    )


def decode(raw: bytes, filename: str) -> tuple[str | None, list[Diagnostic]]:
    """Decode file bytes as UTF-8 (a BOM is allowed), or say where they stop being text."""
    if len(raw) > MAX_BYTES:
        return None, [_too_large(filename)]
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        col = len(before) - (before.rfind(b"\n") + 1) + 1
        where = Range(filename, Pos(line, col), Pos(line, col + 1))
        return None, [
            error(
                "file.not-utf8",
                "File is not UTF-8 text",
                f"Byte 0x{raw[exc.start]:02x} at offset {exc.start} is not valid UTF-8; "
                "save the file as UTF-8.",
                range=where,
            )
        ]
    return text, []


def _compose(text: str, filename: str, loader: Any) -> _Composer:
    """Feed ``text``'s events to a fresh composer, which keeps why it stopped, if it did."""
    composer = _Composer(filename)
    try:
        for event in yaml.parse(text, Loader=loader):
            composer.feed(event)
    except _Abort:
        composer.aborted = True
    except yaml.YAMLError as exc:
        composer.aborted = True
        composer.syntax_error = exc
    return composer


def parse(text: str, filename: str) -> tuple[Document | None, list[Diagnostic]]:
    """Parse YAML text into a ``Document``; every problem is a diagnostic, never an exception.

    libyaml (``CSafeLoader``) reads the file when it is installed. When it refuses the text, the
    pure-Python parser reads it again, so that what gpupool reports does not depend on the
    libyaml build: libyaml 0.2.6 (bundled in PyYAML 6.0.4's wheels) stops flow nesting at 1,000
    levels with a scanner error of its own (yaml/libyaml commit 51843fe, "Limit depth of nesting
    by default"), before gpupool's ``MAX_DEPTH`` could say ``yaml.too-deep``, and its messages
    differ from PyYAML's in places (``spec.syntax`` words them).
    """
    composer = _compose(text, filename, _Loader)
    if composer.syntax_error is not None and _Loader is not yaml.SafeLoader:
        composer = _compose(text, filename, yaml.SafeLoader)
    if composer.syntax_error is not None:
        composer.diags.append(syntax.diagnostic(composer.syntax_error, text, filename))
    if composer.aborted:
        return None, composer.diags
    doc = Document(filename, composer.root, composer.values, composer.keys)
    if doc.data is None and not composer.diags:
        return None, [
            error(
                "file.empty",
                "File is empty",
                "The file holds no YAML content, only comments or blank lines. A stack file "
                "starts with 'apiVersion: gpupool.io/v1' and 'kind: GpuPoolStack'.",
                range=_file_start(filename),
            )
        ]
    if not isinstance(doc.data, dict):
        kind = "empty" if doc.data is None else type(doc.data).__name__
        composer.diags.append(
            error(
                "yaml.not-a-mapping",
                "Stack file must be a mapping",
                f"The document is {kind}; a stack file is a mapping that starts with "
                "'apiVersion: gpupool.io/v1'.",
                range=doc.locate(()),
            )
        )
        return None, composer.diags
    return doc, composer.diags
