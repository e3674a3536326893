"""``--format json``: stdout is one JSON document on every command, an error included.

The error document has one shape (docs/commands.md, error --format json): ``format_version``
and ``error`` with ``kind``, ``message``, ``exit_code``, ``diagnostics`` and ``differences``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

import gpupool
import gpupool.cluster
import gpupool.drift.run
import gpupool.nodes.nvml
import gpupool.usecases.base
import gpupool.usecases.expect
from gpupool import cli
from gpupool.cli import _kind, run
from gpupool.errors import GpupoolError
from gpupool.formats import FORMAT_VERSION
from tests import fake_pulumi
from tests.paths import EXAMPLES, FIXTURES, ROOT

EXAMPLE = EXAMPLES / "aws-inference-l4.yaml"
ERROR_KEYS = {"kind", "message", "exit_code", "diagnostics", "differences"}


def _error_doc(out: str, kind: str, code: int) -> dict[str, Any]:
    doc = json.loads(out)  # exactly one document: json.loads refuses anything after it
    assert doc["format_version"] == FORMAT_VERSION
    error = doc["error"]
    assert set(error) == ERROR_KEYS
    assert (error["kind"], error["exit_code"]) == (kind, code)
    assert "\n" not in error["message"] and not error["message"].startswith("error:")
    return dict(error)


def test_node_inspect_without_nvml_is_a_json_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 18: node inspect printed its error as text with --format json."""
    monkeypatch.setitem(sys.modules, "pynvml", None)  # `import pynvml` fails: no node extra
    assert run(["node", "inspect", "--format", "json"]) == 1
    cap = capsys.readouterr()
    error = _error_doc(cap.out, "node-unavailable", 1)
    assert "pip install 'gpupool[node]'" in error["message"]
    assert cap.err == f"error: {error['message']}\n"  # people still read the line on stderr


def test_preview_without_a_cli_is_a_json_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 18: preview printed plain text with --format json when the engine could not run."""
    stack_file = fake_pulumi.stack_workspace(EXAMPLE, tmp_path, monkeypatch)
    monkeypatch.setenv("PATH", str(tmp_path / "work"))
    assert run(["preview", "--format", "json", str(stack_file)]) == 1
    error = _error_doc(capsys.readouterr().out, "engine-not-installed", 1)
    assert error["message"].startswith("Pulumi CLI not found")


def test_a_locked_stack_is_kind_stack_locked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stack_file = fake_pulumi.stack_workspace(EXAMPLE, tmp_path, monkeypatch)
    assert run(["up", "--yes", str(stack_file)]) == 0
    capsys.readouterr()
    monkeypatch.setenv("FAKE_PULUMI_SCENARIO", "locked")
    assert run(["destroy", "--yes", "--format", "json", str(stack_file)]) == 1
    _error_doc(capsys.readouterr().out, "stack-locked", 1)


def test_an_invalid_stack_is_a_json_error_with_its_diagnostics(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bad = FIXTURES / "invalid" / "mig-layout-does-not-fit.yaml"
    for command in (["plan"], ["render"], ["preview"], ["up", "--yes"], ["drift"]):
        assert run([*command, "--format", "json", str(bad)]) == 1
        error = _error_doc(capsys.readouterr().out, "invalid-stack", 1)
        (diag,) = error["diagnostics"]
        assert diag["code"] == "mig.layout-does-not-fit"
        assert diag["range"]["start"] == {"line": 12, "column": 17}


def test_a_usage_error_is_a_json_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["plan", "--format", "json"]) == 64
    error = _error_doc(capsys.readouterr().out, "usage", 64)
    assert "the following arguments are required: FILE" in error["message"]
    assert run(["catalog", "instances", "--format=json", "--cloud", "mars"]) == 64
    _error_doc(capsys.readouterr().out, "usage", 64)


def test_an_invalid_base_carries_the_base_files_diagnostics(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    desired = FIXTURES / "plan" / "instance-type" / "desired.yaml"
    base = tmp_path / "base.yaml"
    shutil.copy(FIXTURES / "invalid" / "mig-layout-does-not-fit.yaml", base)
    assert run(["plan", "--format", "json", "--base", str(base), str(desired)]) == 1
    error = _error_doc(capsys.readouterr().out, "invalid-base", 1)
    assert [d["code"] for d in error["diagnostics"]] == ["mig.layout-does-not-fit"]


def test_up_and_destroy_write_their_result_as_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """up's document holds the plan it applied (the preview) and the engine's counts."""
    stack_file = fake_pulumi.stack_workspace(EXAMPLE, tmp_path, monkeypatch)
    assert run(["up", "--yes", "--format", "json", str(stack_file)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["format_version"], doc["stack"], doc["operation"]) == (
        FORMAT_VERSION, "inference-prod", "up")
    assert doc["summary"] == {"create": 1, "replace": 1, "same": 3, "update": 1}
    assert doc["changes"] == 3  # like Pulumi's "3 changes": a replacement is one
    assert doc["plan"]["summary"] == {"add": 2, "change": 1, "destroy": 1, "replace": 1}
    assert "format_version" not in doc["plan"]
    assert doc["outputs"]
    assert run(["destroy", "--yes", "--format", "json", str(stack_file)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["operation"], doc["plan"], doc["summary"]) == ("destroy", None, {"delete": 6})



def _subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def test_every_error_kind_is_documented() -> None:
    """docs/commands.md lists the kinds a script can branch on: every operational error class
    (those of gpupool.errors and those defined beside the code that raises them) and the command
    line's own have their row."""
    text = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    table = text[text.index("### error --format json"):]
    for module in pkgutil.walk_packages(gpupool.__path__, "gpupool."):
        if not module.name.endswith(".__main__"):  # error classes live beside their raisers
            importlib.import_module(module.name)
    classes = [c for c in _subclasses(GpupoolError) if c.__module__.startswith("gpupool.")]
    assert {c.__name__ for c in classes} >= {
        "InvalidBaseError", "PlanMismatchError", "UpdateFailedError", "RequiredSourceError",
        "ClusterUnavailableError", "NodeUnavailableError", "StackLockedError"}
    kinds = {_kind(c.__new__(c)) for c in classes}
    for kind in kinds | {"usage", "invalid-stack", "cancelled", "interrupted", "internal"}:
        assert f"`{kind}`" in table, kind


def test_up_without_changes_stops_after_the_preview_and_says_so_in_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stack_file = fake_pulumi.stack_workspace(EXAMPLE, tmp_path, monkeypatch)
    monkeypatch.setenv("FAKE_PULUMI_SCENARIO", "no-changes")
    assert run(["up", "--format", "json", str(stack_file)]) == 0  # nothing to ask about
    doc = json.loads(capsys.readouterr().out)
    assert (doc["summary"], doc["changes"]) == ({}, 0)
    assert doc["plan"]["summary"] == {"add": 0, "change": 0, "destroy": 0, "replace": 0}
    assert not [argv for argv in fake_pulumi.calls(tmp_path) if "up" in argv]


def test_every_command_that_prints_a_result_takes_format_json() -> None:
    """docs/commands.md, Formats: every command but `completion` (a shell script) takes it."""
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    lacking = []
    for name, command in sub.choices.items():
        parsers = [command]
        nested = [a for a in command._actions if isinstance(a, argparse._SubParsersAction)]
        for action in nested:
            parsers = list(action.choices.values())
        for p in parsers:
            formats = [a for a in p._actions if "--format" in a.option_strings]
            if name != "completion" and (not formats or "json" not in formats[0].choices):
                lacking.append(p.prog)
    assert lacking == []
