"""The architecture holds: layers, plug-ins own their names, no imports dodging cycles.

* import-linter's contracts in pyproject.toml (layers in data-flow order, the catalog importing
  nothing of gpupool, plan/record/render independent, no package cycles) pass;
* a cloud's name (``provider.cloud``) and a sharing mode's name (``sharing.mode``) appear as a
  string literal only in their plug-ins (``gpupool/clouds/``, the cloud's own
  ``gpupool/providers/<cloud>.py``, ``gpupool/modes/``) and the catalog; everything else asks
  the plug-ins' traits;
* a GPU scheduler's name (``cluster.scheduler``) appears only in its plug-in
  (``gpupool/schedulers/``) and its builder (``gpupool/sharing/<name>.py``): no other module
  spells one as a literal, compares ``.scheduler`` with anything, or calls
  ``facts.uses_scheduler`` or reads ``SCHEDULER_*``/``DEVICE_*`` names; everything else asks
  the plug-in's traits (the simulator its ``Emulation``), with no file excepted;
* no module imports gpupool inside a function (the way cycles used to be dodged), except the
  command line, which defers its imports so ``gpupool --help`` stays fast;
* no module is over ``MAX_MODULE_LINES`` lines and no function or method over
  ``MAX_FUNCTION_LINES`` (issue 36, "Done when"), except the data tables ``DATA_TABLES`` lists.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from gpupool import clouds, modes, schedulers
from tests.paths import PACKAGE, ROOT

# Literals that equal a plug-in's name but mean something else, each with the reason.
NOT_A_PLUGIN_NAME = {
    # The GPU Operator chart's values key for the MIG strategy (gpu-operator values.yaml).
    ("gpupool/facts/names.py", "mig"),
    # A node report's JSON field holding a GPU's NVML MIG mode (gpupool node inspect).
    ("gpupool/nodes/report.py", "mig"),
    # The catalog GPU model's ``mig`` geometry field in the catalog listing's JSON.
    ("gpupool/views/catalog.py", "mig"),
    # The workload format's ``mig`` column (docs/workload.md) in advise's workload export.
    ("gpupool/advise/workload.py", "mig"),
    # The workload file's ``mig`` column, a MIG profile per pod (issue 28 names the columns).
    ("gpupool/simulate/columns.py", "mig"),
    # A service's ``mig`` request key, the workload file's column name (docs/stack-file.md).
    ("gpupool/service_model.py", "mig"),
}


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _owner_of(rel: str) -> set[str]:
    """Return the plug-in names a file may spell out."""
    if rel.startswith("gpupool/catalog/"):
        return {*clouds.names(), *modes.names()}
    if rel.startswith("gpupool/modes/"):
        return set(modes.names())
    if rel.startswith("gpupool/clouds/"):
        return set(clouds.names())
    if rel.startswith("gpupool/providers/"):
        return {Path(rel).stem} & set(clouds.names())
    return set()


def test_plugin_names_appear_only_in_their_plugins() -> None:
    names = {*clouds.names(), *modes.names()}
    assert {"aws", "kubernetes", "mig", "time-slicing"} <= names  # the scan looks for these
    found = []
    for path in _modules():
        rel = _rel(path)
        allowed = _owner_of(rel)
        for node in ast.walk(ast.parse(path.read_text(), rel)):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value in names
                and node.value not in allowed
                and (rel, node.value) not in NOT_A_PLUGIN_NAME
            ):
                found.append(f"{rel}:{node.lineno}: {node.value!r}")
    assert not found, "plug-in names outside their plug-ins:\n" + "\n".join(found)


_SCHEDULER_IDENTIFIERS = ("SCHEDULER_DEFAULT", "SCHEDULER_HAMI", "SCHEDULER_KAI",
                          "DEVICE_KAI", "DEVICE_HAMI", "uses_scheduler")


def _scheduler_owner(rel: str) -> set[str]:
    """Return the scheduler names a file may spell out: its plug-ins', or its builder's own."""
    if rel.startswith("gpupool/schedulers/"):
        return set(schedulers.names())
    if rel.startswith("gpupool/sharing/"):
        return {Path(rel).stem} & set(schedulers.names())
    return set()


def _compares_scheduler(node: ast.Compare) -> bool:
    if all(isinstance(op, ast.Is | ast.IsNot) for op in node.ops):
        return False  # ``placement.scheduler is None`` names no scheduler
    sides = [node.left, *node.comparators]
    return any(
        (isinstance(s, ast.Attribute) and s.attr == "scheduler")
        or (isinstance(s, ast.Name) and s.id in ("scheduler", "sched"))
        for s in sides
    )


def _scheduler_names_in(rel: str, tree: ast.AST) -> list[str]:
    """Return where ``tree`` names a scheduler it does not own, ``rel:line: what``."""
    allowed = _scheduler_owner(rel)
    # the default scheduler's name, "default", is every other default's too: comparisons of a
    # ``.scheduler`` catch its uses instead
    names = {s.name for s in schedulers.all_schedulers()} - {schedulers.default().name}
    found = []
    for node in ast.walk(tree):
        what = None
        if isinstance(node, ast.Constant) and node.value in names - allowed:
            what = repr(node.value)
        elif isinstance(node, ast.Compare) and _compares_scheduler(node) and not allowed:
            what = "compares a scheduler"
        elif isinstance(node, ast.Name | ast.Attribute) and not allowed:
            ident = node.id if isinstance(node, ast.Name) else node.attr
            what = ident if ident in _SCHEDULER_IDENTIFIERS else None
        if what is not None:
            found.append(f"{rel}:{getattr(node, 'lineno', 0)}: {what}")
    return found


def test_scheduler_names_appear_only_in_their_plugins() -> None:
    assert {"default", "kai", "hami"} <= set(schedulers.names())  # the scan looks for these
    found = []
    for path in _modules():
        rel = _rel(path)
        found += _scheduler_names_in(rel, ast.parse(path.read_text(), rel))
    assert not found, "scheduler names outside their plug-ins:\n" + "\n".join(found)


def test_scheduler_scan_catches_each_way_of_naming_one() -> None:
    # the scan's own reproducers: each line names a scheduler in one of the ways it forbids
    for line in ('x = stack.cluster.scheduler == "kai"', 'if sched not in ("hami",): pass',
                 "facts.uses_scheduler(stack, facts.SCHEDULER_KAI)", "k = DEVICE_HAMI",
                 'if stack.cluster.scheduler != "default": pass'):
        assert _scheduler_names_in("gpupool/views/x.py", ast.parse(line)), line
    assert not _scheduler_names_in("gpupool/sharing/kai.py", ast.parse('chart = "kai"'))
    assert _scheduler_names_in("gpupool/sharing/kai.py", ast.parse('chart = "hami"'))


def test_every_scheduler_has_its_modules() -> None:
    for sched in schedulers.all_schedulers():
        assert (PACKAGE / "schedulers" / f"{sched.name}.py").is_file()
        # a scheduler gpupool installs has its builder half
        assert (PACKAGE / "sharing" / f"{sched.name}.py").is_file() == sched.installs


def test_every_cloud_and_mode_has_its_modules() -> None:
    for cloud in clouds.all_clouds():
        assert (PACKAGE / "clouds" / f"{cloud.name}.py").is_file()
        assert (PACKAGE / "providers" / f"{cloud.name}.py").is_file()
    for mode in modes.all_modes():
        assert (PACKAGE / "modes" / f"{mode.name.replace('-', '_')}.py").is_file()


def test_no_function_level_imports_of_gpupool() -> None:
    found = []
    for path in _modules():
        rel = _rel(path)
        if rel.startswith("gpupool/cli/"):
            continue
        tree = ast.parse(path.read_text(), rel)
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gpupool"):
                    found.append(f"{rel}:{node.lineno}: from {node.module}")
                if isinstance(node, ast.Import) and any(
                    a.name.startswith("gpupool") for a in node.names
                ):
                    found.append(f"{rel}:{node.lineno}: import")
    assert not found, "imports inside functions:\n" + "\n".join(found)


def test_import_linter_contracts_pass() -> None:
    pytest.importorskip("importlinter")
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    run = subprocess.run(
        [exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "broken" not in run.stdout.lower().replace("0 broken", "")


MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80

# Modules and functions allowed past the limits because they are data tables (rows of facts,
# not logic), each with what the table is. Only a table belongs here: code over the limits is
# split by what it owns instead. Empty: every table fits today.
DATA_TABLES: dict[str, str] = {}


def _too_long(rel: str, text: str, allowed: Mapping[str, str] = DATA_TABLES) -> list[str]:
    """Return where ``text`` (the module ``rel``) is over a limit, ``rel[:line]: what``.

    ``allowed`` names the tables let past: ``rel`` for a whole module, ``rel:function``.
    """
    found = []
    lines = len(text.splitlines())
    if lines > MAX_MODULE_LINES and rel not in allowed:
        found.append(f"{rel}: {lines} lines (at most {MAX_MODULE_LINES})")
    for node in ast.walk(ast.parse(text, rel)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES and f"{rel}:{node.name}" not in allowed:
                found.append(f"{rel}:{node.lineno}: {node.name} is {length} lines "
                             f"(at most {MAX_FUNCTION_LINES})")
    return found


def test_no_module_or_function_is_too_long() -> None:
    found = []
    for path in _modules():
        found += _too_long(_rel(path), path.read_text())
    assert not found, "split these by what they own:\n" + "\n".join(found)


def test_length_scan_catches_a_long_module_and_function() -> None:
    # the scan's own reproducers: a function of 81 lines, a method of 81, a module of 501 are
    # caught; 80 and 500 lines pass, and so does what ``allowed`` names
    long_f = "def f() -> None:\n" + "".join(f"    x{i} = {i}\n" for i in range(80))
    assert _too_long("gpupool/x.py", long_f) == ["gpupool/x.py:1: f is 81 lines (at most 80)"]
    assert not _too_long("gpupool/x.py", long_f.removesuffix("    x79 = 79\n"))
    assert not _too_long("gpupool/x.py", long_f, {"gpupool/x.py:f": "a table"})
    method = "class C:\n    def m(self) -> None:\n" + "".join(
        f"        y{i} = {i}\n" for i in range(80))
    assert _too_long("gpupool/x.py", method) == ["gpupool/x.py:2: m is 81 lines (at most 80)"]
    assert _too_long("gpupool/x.py", "x = 1\n" * 501) == ["gpupool/x.py: 501 lines (at most 500)"]
    assert not _too_long("gpupool/x.py", "x = 1\n" * 500)
    assert not _too_long("gpupool/x.py", "x = 1\n" * 501, {"gpupool/x.py": "a table"})


def test_data_tables_are_still_over_a_limit() -> None:
    # an entry whose module or function is back within the limits leaves DATA_TABLES
    for entry in DATA_TABLES:
        rel, _, name = entry.partition(":")
        assert (ROOT / rel).is_file(), entry
        found = _too_long(rel, (ROOT / rel).read_text(), allowed={})
        over = [f for f in found if (f": {name} is " in f if name else f.startswith(f"{rel}: "))]
        assert over, f"{entry} is within the limits now: drop it from DATA_TABLES"
