"""The pins' canonical JSON: made by one reused C encoder, the very text ``json.dumps`` writes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpupool import assemble
from gpupool.graph import Lookup, Ref
from gpupool.plan import pins
from tests.paths import EXAMPLES
from tests.stacks import load_stack


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=pins._plain)


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_part_of_every_example_is_digested_from_json_dumps_text(path: Any) -> None:
    graph = assemble.build(load_stack(path))
    for r in graph.resources:
        parts = [[r.type, r.name, r.depends_on, r.provider, r.replace_on, r.ignore_changes],
                 *r.inputs.values()]
        for value in parts:
            assert pins._canonical(value) == _dumps(value)


def test_odd_values_read_as_json_dumps_writes_them() -> None:
    odd = {"b": [1.5, -0.0, 1e300, 10**30, True, None, ("t",)], "a": "é\u2028\"\\\n\x00",
           "r": Ref("x.y", ""), "l": Lookup("f", {"z": Ref("q")}), "e": {}, "f": []}
    assert pins._canonical(odd) == _dumps(odd)
    assert pins._canonical("text") == _dumps("text")
    with pytest.raises(TypeError):
        pins._canonical({"x": object()})
