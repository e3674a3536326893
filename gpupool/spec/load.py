"""Reading a stack file: bytes -> YAML data plus a source map, with every problem a diagnostic.

This module owns turning a file into a ``Document``: reading it (a regular file, at most
``MAX_BYTES``), decoding it (UTF-8, a BOM allowed), parsing it (libyaml, else PyYAML's own
parser where libyaml refuses the text) and the ``Document`` and ``SourceMap`` that come out.
The composing itself (the source spans, duplicate keys, tags, merge keys, and the limits on
nesting and alias expansion) is ``gpupool.spec.compose``'s; its limits are re-exported here.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Any

import yaml

from gpupool.errors import InputError
from gpupool.files import TooLargeError, UnsafePathError, read_regular
from gpupool.spec import syntax
from gpupool.spec.compose import (
    MAX_BYTES,
    MAX_CHARS,
    MAX_DEPTH,
    MAX_NODES,
    Span,
    compose,
    to_range,
)
from gpupool.spec.diagnostics import Diagnostic, Path, Pos, Range, error

__all__ = ["MAX_BYTES", "MAX_CHARS", "MAX_DEPTH", "MAX_NODES", "Document", "SourceMap", "decode",
           "parse", "read_text"]

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class SourceMap(Mapping[Path, Range]):
    """Document paths to their source ranges, made from the composer's spans when asked for.

    A 1,000-pool stack has about 100,000 values; building a ``Range`` for each of them cost more
    than composing the data, and only the few that a diagnostic points at are ever read.
    """

    __slots__ = ("_filename", "_spans")

    def __init__(self, filename: str, spans: dict[Path, Span] | None = None) -> None:
        self._filename = filename
        self._spans: dict[Path, Span] = {} if spans is None else spans

    def __getitem__(self, path: Path) -> Range:
        return to_range(self._filename, self._spans[path])

    def __contains__(self, path: object) -> bool:
        return path in self._spans

    def __iter__(self) -> Iterator[Path]:
        return iter(self._spans)

    def __len__(self) -> int:
        return len(self._spans)


@dataclass
class Document:
    """A loaded stack file: its data and where each part of it came from."""

    filename: str
    data: Any
    values: Mapping[Path, Range] = field(default_factory=dict)
    keys: Mapping[Path, Range] = field(default_factory=dict)

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


def parse(text: str, filename: str) -> tuple[Document | None, list[Diagnostic]]:
    """Parse YAML text into a ``Document``; every problem is a diagnostic, never an exception.

    libyaml (``CSafeLoader``) reads the file when it is installed. When it refuses the text, the
    pure-Python parser reads it again, so that what gpupool reports does not depend on the
    libyaml build: libyaml 0.2.6 (bundled in PyYAML 6.0.4's wheels) stops flow nesting at 1,000
    levels with a scanner error of its own (yaml/libyaml commit 51843fe, "Limit depth of nesting
    by default"), before gpupool's ``MAX_DEPTH`` could say ``yaml.too-deep``, and its messages
    differ from PyYAML's in places (``spec.syntax`` words them).
    """
    composer = compose(text, filename, _Loader)
    if composer.syntax_error is not None and _Loader is not yaml.SafeLoader:
        composer = compose(text, filename, yaml.SafeLoader)
    if composer.syntax_error is not None:
        composer.diags.append(syntax.diagnostic(composer.syntax_error, text, filename))
    if composer.aborted:
        return None, composer.diags
    doc = Document(filename, composer.root, SourceMap(filename, composer.values),
                   SourceMap(filename, composer.keys))
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
