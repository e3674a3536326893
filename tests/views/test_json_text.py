"""``views.json_text.dumps`` writes the text of json.dumps with an indent."""

from __future__ import annotations

import enum
import json
import random
from collections import OrderedDict
from typing import Any

import pytest

from gpupool.views.json_text import dumps


class _Word(str, enum.Enum):
    A = "a"


class _Count(enum.IntEnum):
    THREE = 3


def _value(rnd: random.Random, depth: int = 0) -> Any:
    pick = rnd.randrange(12 if depth < 5 else 6)
    if pick == 0:
        return rnd.choice(["", "a", 'é\u2028"\\\n\x00\x1f', "\ud800x", "日本", _Word.A])
    if pick == 1:
        return rnd.choice([rnd.randrange(-10**20, 10**20), _Count.THREE, 0, -1])
    if pick == 2:
        return rnd.choice([0.1, -0.0, 1e300, 3.0, 1 / 3, float("inf"), -float("inf"),
                           float("nan"), 1e-7])
    if pick in (3, 4, 5):
        return rnd.choice([True, False, None, "x", 1, 2.0])
    if pick in (6, 7):
        return [_value(rnd, depth + 1) for _ in range(rnd.randrange(4))]
    if pick == 8:
        return tuple(_value(rnd, depth + 1) for _ in range(rnd.randrange(3)))
    if pick == 9:
        return OrderedDict((str(i), _value(rnd, depth + 1)) for i in range(rnd.randrange(3)))
    keys = [rnd.choice(["a", "b", "é", _Word.A, ""]) + str(i) for i in range(rnd.randrange(5))]
    return {k: _value(rnd, depth + 1) for k in keys}


@pytest.mark.parametrize("indent", [1, 2, 4])
def test_the_same_text_as_json_dumps_on_seeded_random_documents(indent: int) -> None:
    rnd = random.Random(indent)
    for _ in range(3000):
        value = _value(rnd)
        assert dumps(value, indent) == json.dumps(value, indent=indent, ensure_ascii=False)


@pytest.mark.parametrize("value", [{1: "a"}, {None: 1, True: 2, 1.5: 3}, {"x": object()},
                                   {"x": {1, 2}}, [b"bytes"]], ids=repr)
def test_what_json_dumps_converts_or_refuses_it_converts_or_refuses(value: Any) -> None:
    try:
        expected = json.dumps(value, indent=2, ensure_ascii=False)
    except TypeError as exc:
        with pytest.raises(TypeError, match=str(exc)):
            dumps(value)
    else:
        assert dumps(value) == expected


def test_a_cycle_is_refused_as_json_dumps_refuses_it() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference detected"):
        dumps(loop)
