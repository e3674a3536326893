"""The simulator's parts name the state they share (``docs/architecture.md``, The simulator).

Each part of ``engine.Simulation`` is a class in a module of its own. A part may read state set
by another only where its class declares it (an annotation without a value), so that the state
the parts share is written down in each reader; methods of other parts are called through the
run. The check is on the source (an AST walk of each part's methods).
"""

from __future__ import annotations

import ast

import pytest

from gpupool.simulate import engine
from tests.paths import PACKAGE

PARTS = ("loop", "queues", "scheduling", "preempt", "node_index", "node_autoscaler", "accounting",
         "checkpoints")


def _part_class(module: str) -> ast.ClassDef:
    tree = ast.parse((PACKAGE / "simulate" / f"{module}.py").read_text(encoding="utf-8"))
    bases = {b.__name__ for b in engine.Simulation.__mro__}
    found = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name in bases]
    assert len(found) == 1, f"{module} holds one part of Simulation"
    return found[0]


def _methods_of_every_part() -> set[str]:
    return {n.name for m in PARTS for n in _part_class(m).body if isinstance(n, ast.FunctionDef)}


@pytest.mark.parametrize("module", PARTS)
def test_a_part_reads_only_its_own_state_and_what_it_declares(module: str) -> None:
    cls = _part_class(module)
    declared = {n.target.id for n in cls.body
                if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    stored, read = set(), set()
    for n in ast.walk(cls):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self":
            (stored if isinstance(n.ctx, ast.Store) else read).add(n.attr)
    undeclared = read - stored - declared - _methods_of_every_part()
    assert not undeclared, f"{module}.{cls.name} reads undeclared state: {sorted(undeclared)}"


def test_every_part_is_a_base_of_the_simulation() -> None:
    names = {b.__module__.rsplit(".", 1)[-1] for b in engine.Simulation.__mro__[1:-1]}
    assert names == set(PARTS)
