"""``gpupool simulate`` gives the same bytes as before the engine was cut into parts (issue 36).

The digests in ``tests/fixtures/same_bytes/digests.json`` were recorded from the one-class engine
before any change (``tests/simulate/same_bytes.py`` lists the cases and how to dump outputs).
The openb cases need the published trace in ``../shared/reference/upstream/fgd`` and are
skipped without it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable

import pytest

from tests.simulate import same_bytes

KEPT: dict[str, str] = json.loads(same_bytes.FIXTURE.read_text(encoding="utf-8"))


@functools.cache
def _cases() -> dict[str, Callable[[], str]]:
    return dict(same_bytes.cases())


def test_every_recorded_case_is_still_a_case() -> None:
    names = set(_cases())
    missing = {n for n in KEPT if n not in names and not n.startswith("openb/")}
    assert not missing and names - set(KEPT) == set()
    assert len(KEPT) > 150


@pytest.mark.parametrize("name", sorted(KEPT))
def test_the_output_is_byte_identical(name: str) -> None:
    if name.startswith("openb/") and not (same_bytes.FGD / "openb_node_list_gpu_node.csv").exists():
        pytest.skip("the openb trace ../shared/reference/upstream/fgd is not here")
    run = _cases()[name]
    assert same_bytes.digest(run()) == KEPT[name]
