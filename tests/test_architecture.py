"""The architecture holds: layers, plug-ins own their names, no imports dodging cycles.

* import-linter's contracts in pyproject.toml (layers in data-flow order, the catalog importing
  nothing of gpupool, plan/record/render independent, no package cycles) pass;
* a cloud's name (``provider.cloud``) and a sharing mode's name (``sharing.mode``) appear as a
  string literal only in their plug-ins (``gpupool/clouds/``, the cloud's own
  ``gpupool/providers/<cloud>.py``, ``gpupool/modes/``) and the catalog; everything else asks
  the plug-ins' traits;
* no module imports gpupool inside a function (the way cycles used to be dodged), except the
  command line, which defers its imports so ``gpupool --help`` stays fast.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpupool import clouds, modes
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
        if rel == "gpupool/cli.py":
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
