"""What a plan pins of the graph it was made from, so that ``up --expect`` applies only that.

This module owns the pins: for each resource of the desired graph, a SHA-256 digest of what the
engine acts on (type token, logical name, inputs, dependencies, provider, replace-on and
ignore-changes paths; not ``facts``, ``owner`` or ``manifest``, which explain a change or are
derived from the inputs), a short digest of each part (each input key, and ``options`` for all
that is not an input) so a difference can be named, and one digest of the whole graph. Each
part is serialised once (canonical JSON, ``Ref`` and ``Lookup`` as the graph's JSON form writes
them); a resource's digest is the digest of its parts' full digests. A reviewed plan carries
them; the graph about to be applied is pinned again and every resource must match, whatever
actions the engine shows, so a file whose values changed after the review (600 nodes where 6
were reviewed) is refused. Acceptance rests on the full digests; the short ones only say which
part differs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

from gpupool.graph import Lookup, Ref, Resource, ResourceGraph

ALGORITHM = "sha256"
DIGEST_CHARS = 64
PART_CHARS = 16
INPUT_PREFIX = "inputs."
#: the part that holds what is not an input: type, logical name, dependencies, provider, paths
OPTIONS = "options"


@dataclass(frozen=True)
class ResourcePin:
    """One resource's digest, and a short digest per part (``type``, ``inputs.<key>`` ...)."""

    digest: str
    parts: Mapping[str, str]


@dataclass(frozen=True)
class GraphPins:
    """The digest of a whole graph and of each of its resources, by address."""

    digest: str
    resources: Mapping[str, ResourcePin]


def _plain(value: Any) -> Any:
    """Return a value the JSON encoder does not know as the graph's JSON form writes it."""
    if isinstance(value, Ref):
        return {"$ref": [value.address, value.attr]}
    if isinstance(value, Lookup):
        return {"$lookup": [value.function, value.args]}
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not plain data")


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                            default=_plain)
# The same encoding as ``_ENCODER.encode``, from one C encoder made once: ``encode`` makes a new
# one for every value, and a 1,000-pool graph has 133,414 parts to digest (most of what pinning
# cost). No circular-reference bookkeeping: graph inputs are trees.
_C_ENCODE: Any = None if c_make_encoder is None else c_make_encoder(
    None, _plain, encode_basestring, None, ":", ",", True, False, True)


def _canonical(value: Any) -> str:
    """Return ``value`` as the canonical JSON that is digested (``_ENCODER``'s text)."""
    if _C_ENCODE is None:
        return _ENCODER.encode(value)
    return "".join(_C_ENCODE(value, 0))


def _sha(value: Any) -> str:
    text = _canonical(value)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def pin_resource(r: Resource) -> ResourcePin:
    """Return one resource's pin: each part digested once, the resource as their digest."""
    full = {OPTIONS: _sha([r.type, r.name, r.depends_on, r.provider, r.replace_on,
                           r.ignore_changes])}
    full.update({f"{INPUT_PREFIX}{k}": _sha(v) for k, v in r.inputs.items()})
    return ResourcePin(_sha(full), {k: v[:PART_CHARS] for k, v in full.items()})


def pin_graph(graph: ResourceGraph) -> GraphPins:
    """Return the pins of ``graph``: what its resources make the engine do, digested."""
    resources = {r.address: pin_resource(r) for r in graph.resources}
    whole = _sha({"stack": graph.stack, "cloud": graph.cloud,
                  "resources": {a: p.digest for a, p in resources.items()}})
    return GraphPins(whole, resources)


def _say_parts(reviewed: ResourcePin, applied: ResourcePin) -> str:
    names = sorted(k for k in {*reviewed.parts, *applied.parts}
                   if reviewed.parts.get(k) != applied.parts.get(k))
    inputs = [n.removeprefix(INPUT_PREFIX) for n in names if n.startswith(INPUT_PREFIX)]
    said = [f"inputs {', '.join(inputs)}"] if inputs else []
    if OPTIONS in names:
        said.append("its type, name, dependencies, provider or replace/ignore paths")
    return " and ".join(said) if said else "its inputs"


def differences(reviewed: GraphPins, applied: GraphPins) -> list[str]:
    """Return one line per address whose pinned resource differs, in the applied graph's order.

    Every resource's digest is compared, not only the graph's: a document edited to keep the
    graph digest and change one resource's is read from a file and proves nothing by itself.
    """
    found = []
    for address, pin in applied.resources.items():
        was = reviewed.resources.get(address)
        if was is None:
            found.append(f"{address}: not in the reviewed plan's graph; it would be applied")
        elif was.digest != pin.digest:
            found.append(f"{address}: {_say_parts(was, pin)} differ from the reviewed plan")
    found += [f"{address}: in the reviewed plan's graph, not in the file applied"
              for address in reviewed.resources if address not in applied.resources]
    if not found and reviewed.digest != applied.digest:  # same resources, other stack or cloud
        found.append("the graph differs from the reviewed plan's (its stack or cloud)")
    return found


def to_json(pins: GraphPins) -> dict[str, Any]:
    """Return the pins as the plan document's ``pins`` object."""
    return {
        "algorithm": ALGORITHM,
        "graph": pins.digest,
        "resources": {a: {"digest": p.digest, "parts": dict(p.parts)}
                      for a, p in pins.resources.items()},
    }


def _hex(value: Any, chars: int) -> bool:
    return (isinstance(value, str) and len(value) == chars
            and all(c in "0123456789abcdef" for c in value))


def from_json(data: Any) -> GraphPins:
    """Read a plan document's ``pins`` object, checking every field.

    Raises:
        ValueError: not pins of this algorithm, or a field of the wrong type or form.

    """
    if not isinstance(data, Mapping):
        raise ValueError("'pins' is not an object")
    if data.get("algorithm") != ALGORITHM:
        raise ValueError(f"'pins.algorithm' is {data.get('algorithm')!r}, not '{ALGORITHM}'")
    if not _hex(data.get("graph"), DIGEST_CHARS):
        raise ValueError(f"'pins.graph' is not a {ALGORITHM} digest")
    resources = data.get("resources")
    if not isinstance(resources, Mapping):
        raise ValueError("'pins.resources' is not an object")
    out: dict[str, ResourcePin] = {}
    for address, pin in resources.items():
        parts = pin.get("parts") if isinstance(pin, Mapping) else None
        if (not isinstance(pin, Mapping) or not _hex(pin.get("digest"), DIGEST_CHARS)
                or not isinstance(parts, Mapping)
                or not all(isinstance(k, str) and _hex(v, PART_CHARS) for k, v in parts.items())):
            raise ValueError(f"'pins.resources' entry {str(address)[:80]!r} is not a digest "
                             "with its parts")
        out[str(address)] = ResourcePin(pin["digest"], dict(parts))
    return GraphPins(data["graph"], out)
