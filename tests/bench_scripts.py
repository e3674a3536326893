"""The scripts of ``bench/`` as modules, for the tests that check or reuse them (a helper).

``bench/`` is not a package (its scripts run as ``python bench/NAME.py``), so ``load`` imports
one by its file. The openb cluster's stack, for instance, has one converter:
``bench/openb_stack.py``; the tests that need that stack take it from there (``openb_stack``).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from gpupool.model import Stack
from tests.paths import ROOT
from tests.stacks import load_stack_text

BENCH = ROOT / "bench"


def load(name: str) -> ModuleType:
    """Return ``bench/<name>.py`` imported as a module."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def openb_stack(node_list: Path) -> Stack:
    """The openb node list as the validated stack ``bench/openb_stack.py`` writes."""
    converter = load("openb_stack")
    return load_stack_text(converter.stack_text(converter.read_nodes(node_list)))
