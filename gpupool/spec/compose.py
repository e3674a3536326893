"""Composing a stack file's YAML: parser events -> Python data, its source spans, diagnostics.

This module owns the composer that ``gpupool.spec.load`` feeds: it builds the data from the
parser's events itself (iteratively, never recursively) so that it can, in one pass, remember
where every value and key came from (``Span``, turned into a ``Range`` only when asked), catch
duplicate keys (PyYAML silently keeps the last one), apply merge keys, refuse unsupported tags
and values JSON cannot hold, and stop alias bombs and absurd nesting with a diagnostic instead of
a hang or a crash. It also owns the limits on a stack file (documented in docs/security.md):
``MAX_BYTES`` (the reader's), ``MAX_DEPTH``, ``MAX_NODES`` and ``MAX_CHARS`` (the composer's:
values and characters of keys and scalars after alias expansion, since an anchored 1 MiB string
aliased a thousand times is a small file and a gigabyte of data).
"""

from __future__ import annotations

import math
from typing import Any

import yaml

from gpupool.spec.diagnostics import Diagnostic, Path, Pos, Range, error

MAX_BYTES = 8 * 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 200_000  # twice the 1,000-pool, 4,000-tenant benchmark stack (97,509 values)
MAX_CHARS = MAX_BYTES

_RESOLVER = yaml.resolver.Resolver()
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_COLLECTION_TAGS = {None, "!", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"}


#: Where a value or key is in the file, as the composer keeps it: the 0-based line and column of
#: its start and of its end (a ``Range`` is made only for a place something asks for).
Span = tuple[int, int, int, int]


def to_range(filename: str, span: Span) -> Range:
    """Return the 1-based ``Range`` of a 0-based ``Span`` in ``filename``."""
    sl, sc, el, ec = span
    return Range(filename, Pos(sl + 1, sc + 1), Pos(el + 1, ec + 1))


class _Abort(Exception):
    """Stop composing: the diagnostic already says why."""


class _Frame:
    """One open mapping or sequence: where it is, what it holds so far, a pending key."""

    __slots__ = ("anchor", "bad_key", "chars_at_start", "container", "count_at_start", "has_key",
                 "is_list", "key", "key_span", "merges", "path", "start")

    def __init__(self, path: Path, container: Any, start: tuple[int, int], anchor: str | None,
                 count_at_start: int, chars_at_start: int) -> None:
        self.path = path
        self.container = container
        self.is_list = isinstance(container, list)
        self.start = start
        self.anchor = anchor
        self.count_at_start = count_at_start
        self.chars_at_start = chars_at_start
        self.key: Any = None
        self.key_span: Span | None = None
        self.has_key = False
        self.bad_key = False
        self.merges: list[tuple[Any, Span]] = []


#: tags whose constructed values are immutable and depend on the scalar's text alone, so that a
#: value read once is reused for the same text
_CACHED_TAGS = frozenset({"tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
                          "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"})


class _Composer:
    """Builds Python data and the source map from a stream of YAML events.

    Positions are kept as spans (``Span``) and turned into ranges only where a diagnostic or a
    reader asks; the tag of a plain scalar and the value of an int, float, bool or null are
    remembered per distinct text (a stack file repeats the same few thousand scalars).
    """

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.diags: list[Diagnostic] = []
        self.values: dict[Path, Span] = {}
        self.keys: dict[Path, Span] = {}
        self.anchors: dict[str, tuple[Any, int, int]] = {}  # value, nodes, characters
        self.stack: list[_Frame] = []
        self.nodes = 0
        self.chars = 0
        self.root: Any = None
        self.documents = 0
        self.aborted = False
        self.syntax_error: yaml.YAMLError | None = None
        self.tags: dict[tuple[str, Any], str] = {}
        self.constructed: dict[tuple[str, str], Any] = {}
        self.handlers: dict[type, Any] = {
            yaml.ScalarEvent: self.scalar,
            yaml.MappingStartEvent: self.start,
            yaml.SequenceStartEvent: self.start,
            yaml.MappingEndEvent: self.end,
            yaml.SequenceEndEvent: self.end,
            yaml.AliasEvent: self.alias,
        }

    def range(self, span: Span) -> Range:
        return to_range(self.filename, span)

    def fail(self, code: str, summary: str, detail: str, where: Span | None) -> None:
        self.diags.append(error(code, summary, detail,
                                range=None if where is None else self.range(where)))
        raise _Abort

    def count(self, n: int, where: Span, chars: int = 0) -> None:
        self.nodes += n
        self.chars += chars
        if self.nodes > MAX_NODES or self.chars > MAX_CHARS:
            self.too_large(where)

    def too_large(self, where: Span) -> None:
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
        if top.is_list:
            return (*top.path, len(top.container))
        if top.has_key:
            return (*top.path, top.key)
        return (*top.path, "<key>")

    def feed(self, event: yaml.Event) -> None:
        handler = self.handlers.get(type(event))
        if handler is not None:
            handler(event)
        elif isinstance(event, yaml.ScalarEvent):
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
                    _span(event.start_mark, event.end_mark),
                )

    def scalar(self, ev: yaml.ScalarEvent) -> None:
        sm, em = ev.start_mark, ev.end_mark
        where = (sm.line, sm.column, em.line, em.column)
        text = ev.value
        self.nodes += 1
        self.chars += len(text)
        if self.nodes > MAX_NODES or self.chars > MAX_CHARS:
            self.too_large(where)
        tag = ev.tag
        if tag is None:
            key = (text, ev.implicit)
            tag = self.tags.get(key)
            if tag is None:
                tag = self.tags[key] = _RESOLVER.resolve(yaml.ScalarNode, text, ev.implicit)
        elif tag == "!":
            tag = _STR
        value: Any
        if tag == _STR:
            value = text
        elif tag == _MERGE and self.stack and not self.stack[-1].has_key:
            value = _MergeKey()
        elif (tag, text) in self.constructed:
            value = self.constructed[tag, text]
        else:
            ctor = _CONSTRUCTOR.yaml_constructors.get(tag)
            if ctor is None or tag == _MERGE:
                self.diags.append(
                    error(
                        "yaml.unsupported-tag",
                        "Unsupported YAML tag",
                        f"The tag {tag!r} is not allowed in a stack file; remove it.",
                        range=self.range(where),
                    )
                )
                value = text
            else:
                problems = len(self.diags)
                value = self.construct(ctor, tag, ev, where)
                if tag in _CACHED_TAGS and len(self.diags) == problems:
                    self.constructed[tag, text] = value
        if ev.anchor:
            self.anchors[ev.anchor] = (value, 1, len(text))
        self.add(value, where)

    def construct(self, ctor: Any, tag: str, ev: yaml.ScalarEvent, where: Span) -> Any:
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
                    range=self.range(where),
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
                    range=self.range(where),
                )
            )
            return ev.value
        return value

    def start(self, ev: yaml.CollectionStartEvent) -> None:
        sm, em = ev.start_mark, ev.end_mark
        where = (sm.line, sm.column, em.line, em.column)
        self.count(1, where)
        if ev.tag not in _COLLECTION_TAGS:
            self.diags.append(
                error(
                    "yaml.unsupported-tag",
                    "Unsupported YAML tag",
                    f"The tag {ev.tag!r} is not allowed in a stack file; remove it.",
                    range=self.range(where),
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
            _Frame(self.child_path(), container, (sm.line, sm.column), ev.anchor, self.nodes,
                   self.chars)
        )

    def end(self, ev: yaml.CollectionEndEvent) -> None:
        frame = self.stack.pop()
        em = ev.end_mark
        where = (*frame.start, em.line, em.column)
        if frame.merges:
            self.apply_merges(frame)
        if frame.anchor:
            self.anchors[frame.anchor] = (
                frame.container,
                self.nodes - frame.count_at_start,
                self.chars - frame.chars_at_start,
            )
        self.add(frame.container, where)

    def alias(self, ev: yaml.AliasEvent) -> None:
        where = _span(ev.start_mark, ev.end_mark)
        if ev.anchor not in self.anchors:
            self.diags.append(
                error(
                    "yaml.unknown-alias",
                    "Unknown alias",
                    f"No anchor named {ev.anchor!r} appears before this alias.",
                    range=self.range(where),
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
                            range=self.range(where),
                        )
                    )
                    continue
                for k, v in src.items():
                    if k not in mapping:
                        mapping[k] = v
                        self.values.setdefault((*frame.path, k), where)

    def add(self, value: Any, where: Span) -> None:
        if not self.stack:
            self.root = value
            self.values[()] = where
            return
        top = self.stack[-1]
        if top.is_list:
            container = top.container
            self.values.setdefault((*top.path, len(container)), where)
            container.append(value)
            return
        if not top.has_key:
            top.has_key, top.key, top.key_span, top.bad_key = True, value, where, False
            if value.__class__ is not str and not isinstance(value, (str, _MergeKey)):
                top.bad_key = True
                top.key = (
                    str(value) if isinstance(value, (int, float, bool)) or value is None else "?"
                )
                self.diags.append(
                    error(
                        "yaml.non-string-key",
                        "Keys must be strings",
                        f"The key {value!r} is not a string; quote it or fix the indentation.",
                        range=self.range(where),
                    )
                )
            return
        key, key_span = top.key, top.key_span
        top.has_key, top.key = False, None
        if top.bad_key:
            return
        if key.__class__ is _MergeKey:
            top.merges.append((value, where))
            return
        path = (*top.path, key)
        if key in top.container:
            first = self.keys.get(path)
            line = f" (first on line {first[0] + 1})" if first else ""
            self.diags.append(
                error(
                    "yaml.duplicate-key",
                    f"Duplicate key '{key}'",
                    f"'{key}' appears twice in this mapping{line}; YAML readers differ on which "
                    "one wins, so gpupool refuses both. Keep one.",
                    path,
                    range=None if key_span is None else self.range(key_span),
                )
            )
            return
        top.container[key] = value
        if key_span is not None:
            self.keys[path] = key_span
        self.values.setdefault(path, where)


def _span(start: yaml.Mark, end: yaml.Mark) -> Span:
    return (start.line, start.column, end.line, end.column)


class _MergeKey:
    """Marks the YAML merge key ``<<`` while composing."""

    __slots__ = ()


def compose(text: str, filename: str, loader: Any) -> _Composer:
    """Feed ``text``'s events to a fresh composer, which keeps why it stopped, if it did.

    The composer holds the result: ``root`` (the data), ``values`` and ``keys`` (each path's
    span), ``diags``, ``aborted`` (a diagnostic stopped it) and ``syntax_error`` (the parser's).
    """
    composer = _Composer(filename)
    feed, handlers = composer.feed, composer.handlers
    parser = None
    try:
        # yaml.parse(text, Loader=loader), without a generator and a check_event per event (the
        # pure-Python reader can refuse the text as the parser is made)
        parser = loader(text)
        get_event = parser.get_event
        while (event := get_event()) is not None:
            handler = handlers.get(type(event))
            if handler is None:
                feed(event)
            else:
                handler(event)
    except _Abort:
        composer.aborted = True
    except yaml.YAMLError as exc:
        composer.aborted = True
        composer.syntax_error = exc
    finally:
        if parser is not None:
            parser.dispose()
    return composer
