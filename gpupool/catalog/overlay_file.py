"""Reading the local price overlay's file as the hostile input it may be.

The overlay (``instances-<cloud>.json`` in ``overlay_dir()``, written by ``gpupool catalog
refresh``) lies in a folder any process of the user can write, so whatever is there is input,
not data gpupool shipped: a file cut short by a full disk, a link to ``/dev/zero``, a FIFO,
gigabytes, JSON nested a hundred thousand deep, ``NaN`` or a format a newer gpupool wrote.
This module owns the file as bytes and JSON: it reads a regular file only, at most
``MAX_BYTES``, as strict JSON (no ``NaN``/``Infinity``, no number that is not finite, no key
twice, no nesting past what the format needs), and states the rules only an overlay row has
(``CURRENCIES``, ``INSTANCE_ROWS``, ``FORMAT_VERSION``). Every fault is one ``OverlayError``
naming the file and what to do.

The rows themselves are checked by ``gpupool.catalog.price_overlay``, by the bundled files'
rules.
"""

from __future__ import annotations

import json
import math
import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

MAX_BYTES = 4 * 1024 * 1024
"""The largest overlay read: a refresh of every GPU type a cloud sells writes well under 1 MiB."""

MAX_DEPTH = 8
"""The deepest nesting an overlay has (document, rows, row, price: 4) with room to spare."""

FORMAT_VERSION = "1"
"""The overlay format this gpupool writes and reads (a file without one predates it)."""

CURRENCIES: Mapping[str, str] = {"aws": "USD", "gcp": "USD", "azure": "USD", "volcengine": "CNY"}
"""The currency each cloud's refresh writes (``gpupool.refresh``): its overlay's only one."""

INSTANCE_ROWS: frozenset[str] = frozenset({"volcengine"})
"""Clouds whose refresh writes instance rows (types the bundled file lacks): only their overlay
may add instance types; every other cloud's overlay only prices bundled types."""

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


class OverlayError(Exception):
    """The local price overlay cannot be used; the message names it and says what to do."""

    def __init__(self, path: Path | str, cloud: str, problem: str) -> None:
        super().__init__(
            f"the local price overlay {path} {problem}; delete it, or run `gpupool catalog "
            f"refresh --cloud {cloud}` again to replace it"
        )
        self.path = str(path)
        self.problem = problem


def _depth(value: Any, path: Path, cloud: str, level: int = 1) -> None:
    """Refuse nesting deeper than ``MAX_DEPTH`` (JSON's own limit is the interpreter's stack)."""
    if level > MAX_DEPTH:
        raise OverlayError(path, cloud, f"nests deeper than {MAX_DEPTH} levels")
    children = value.values() if isinstance(value, dict) else value
    for child in children if isinstance(value, (dict, list)) else ():
        _depth(child, path, cloud, level + 1)


def _strict(path: Path, cloud: str) -> dict[str, Any]:
    """Return the ``json.loads`` hooks that refuse what no refresh writes."""

    def constant(name: str) -> float:
        raise ValueError(f"{name} is not a number JSON allows")

    def number(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(f"{text[:40]} is not a finite number")
        return value

    def integer(text: str) -> int:
        # every figure of a row is compared as a float; one past the float range (a 400-digit
        # integer) would end in OverflowError there
        value = int(text)
        if abs(value) > sys.float_info.max:
            raise ValueError(f"{text[:40]}... is too large a number")
        return value

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for key, value in items:
            if key in found:
                raise ValueError(f"key {key[:40]!r} appears twice in one object")
            found[key] = value
        return found

    return {"parse_constant": constant, "parse_float": number, "parse_int": integer,
            "object_pairs_hook": pairs}


def read(path: Path, cloud: str) -> dict[str, Any] | None:
    """Return the overlay document at ``path`` as strict JSON, or None when there is none.

    Args:
        path: ``overlay_dir() / f"instances-{cloud}.json"``.
        cloud: The cloud whose overlay it is (named in the message).

    Returns:
        The top-level object, its ``format_version`` checked; None when no file is there (or
        the overlay folder is not a folder).

    Raises:
        OverlayError: not a regular file, unreadable, over ``MAX_BYTES``, not UTF-8 JSON, a
            non-finite number, a key twice, nested too deep, not an object, or another format.

    """
    try:
        fd = os.open(path, os.O_RDONLY | _NONBLOCK | _CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise OverlayError(path, cloud, f"cannot be read ({exc.strerror or exc})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise OverlayError(path, cloud, "is not a regular file")
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise OverlayError(path, cloud, f"cannot be read ({exc.strerror or exc})") from None
    return parse(data, path, cloud)


def parse(data: bytes, path: Path, cloud: str) -> dict[str, Any]:
    """Return an overlay document from its bytes, by the rules of ``read``.

    ``gpupool catalog refresh`` parses what it is about to write with this, so it writes only
    what a later ``read`` takes.

    Raises:
        OverlayError: as ``read`` (``path`` only names the file in the message).

    """
    if len(data) > MAX_BYTES:
        too_big = f"is larger than {MAX_BYTES} bytes, more than any refresh writes"
        raise OverlayError(path, cloud, too_big)
    try:
        payload = json.loads(data.decode("utf-8"), **_strict(path, cloud))
    except UnicodeDecodeError:
        raise OverlayError(path, cloud, "is not UTF-8 text") from None
    except RecursionError:
        raise OverlayError(path, cloud, f"nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # JSONDecodeError, the hooks' refusals, a 5,000-digit integer
        said = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        unread = f"is not a JSON document gpupool can read ({said})"
        raise OverlayError(path, cloud, unread) from None
    _depth(payload, path, cloud)
    if not isinstance(payload, dict):
        raise OverlayError(path, cloud, "is not a JSON object")
    version = payload.get("format_version", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        shown = repr(version)[:40]
        other = f"has format_version {shown}, not {FORMAT_VERSION!r} (another gpupool wrote it)"
        raise OverlayError(path, cloud, other)
    return payload
