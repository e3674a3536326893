"""Stack edits written back into the stack file, keeping its comments, key order and layout.

The file is read with a round-trip YAML library (ruamel.yaml), the edits are applied to the
nodes they name, and the result is dumped again: comments, key order, flow or block style of
untouched mappings and the document's other lines stay as they were, so ``gpupool plan --base``
on the written file shows only the reviewable change. An edit is checked before anything is
written: the edited text must validate (``gpupool validate``'s rules) and the write is atomic
(``gpupool.files``), so a failed step leaves the file as it was.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any

from gpupool.errors import InputError


class EditError(InputError):
    """An edit does not apply to the stack file (the path is not there)."""


def _yaml() -> Any:
    from ruamel.yaml import YAML  # imported here: only advise --write needs it

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a long line the user wrote on one
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def _plain(value: Any, flow: bool) -> Any:
    """Return the value as ruamel nodes, in flow style where the replaced node was (``{a: 1}``)."""
    from ruamel.yaml.comments import CommentedMap

    if isinstance(value, Mapping):
        out = CommentedMap()
        for k, v in value.items():
            out[k] = _plain(v, flow)
        if flow:
            out.fa.set_flow_style()
        return out
    return value


# (mapping indent, sequence indent, dash offset) layouts stack files are written in: the first
# one whose unedited round trip gives the file back is used.
_LAYOUTS = ((2, 4, 2), (2, 2, 0), (4, 6, 4), (4, 4, 0))


def _loaded(text: str) -> tuple[Any, Any]:
    """Return the round-trip YAML emitter set to the file's layout, and the file's data."""
    best: tuple[int, Any, Any] | None = None
    for mapping, sequence, offset in _LAYOUTS:
        yaml = _yaml()
        yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
        data = yaml.load(text)
        out = io.StringIO()
        yaml.dump(data, out)
        lines = zip(out.getvalue().splitlines(), text.splitlines(), strict=False)
        differing = sum(a != b for a, b in lines)
        if best is None or differing < best[0]:
            best = (differing, yaml, data)
        if differing == 0:
            break
    assert best is not None
    return best[1], best[2]


def _merge(node: MutableMapping[Any, Any], value: Mapping[str, Any]) -> None:
    """Make ``node`` hold ``value`` in place: keys it lacks go, the others are set."""
    for key in [k for k in node if k not in value]:
        del node[key]
    for key, new in value.items():
        old = node.get(key)
        if isinstance(old, MutableMapping) and isinstance(new, Mapping):
            _merge(old, new)
        else:
            flow = bool(getattr(getattr(node, "fa", None), "flow_style", lambda: False)())
            node[key] = _plain(new, flow)


def apply(text: str, edits: Sequence[tuple[Sequence[str | int], Any]]) -> str:
    """Return ``text`` with each (path, value) edit applied, comments and layout kept.

    Raises:
        EditError: a path's parent is not in the file.

    """
    yaml, data = _loaded(text)
    for path, value in edits:
        node = data
        for part in path[:-1]:
            try:
                node = node[part]
            except (KeyError, IndexError, TypeError) as err:
                shown = ".".join(str(p) for p in path)
                raise EditError(
                    f"the stack file has no {shown}: it changed since it was read"
                ) from err
        last = path[-1]
        try:
            old = node[last]
        except (KeyError, IndexError, TypeError):
            old = None
        if isinstance(old, MutableMapping) and isinstance(value, Mapping):
            _merge(old, value)  # the mapping the file had: its style and comments stay
            continue
        flow = bool(getattr(getattr(old, "fa", None), "flow_style", lambda: False)())
        if old is None and hasattr(node, "fa"):
            flow = bool(node.fa.flow_style())
        node[last] = _plain(value, flow)
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()
