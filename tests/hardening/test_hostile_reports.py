"""Hostile node reports and applied records: one clear error, never a hang or an internal error.

Issue 19, items 14 and 15. ``gpupool drift --node-reports DIR`` reads files copied from many
machines: a report of the wrong shape, a FIFO or a link to ``/dev/zero`` named ``*.json``, or a
deeply nested document must each end in one ``error:`` line naming the file (a FIFO must not
block the read, ``/dev/zero`` must not be read without bound). ``gpupool plan`` reads the applied
record back as its base: a record of the wrong shape (``facts`` a string, nesting thousands of
levels deep) is the documented "corrupt or of an unknown format" error, not an internal error.

Each command runs in a child process with a time limit, so a hang fails the test instead of
stopping the suite.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gpupool import record
from gpupool.assemble import build
from gpupool.nodes.report import Fault, GpuInstance, GpuReport, MigState, NodeReport
from tests.paths import EXAMPLES, ROOT
from tests.stacks import load_stack

EXAMPLE = EXAMPLES / "aws-inference-l4.yaml"
STACK = "inference-prod"
LIMIT_S = 60  # a hang, not a slow machine, is what runs past this


def gpupool(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the command line in a child; a child that hangs is killed and fails the test."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "gpupool", *argv], cwd=ROOT, env=env or dict(os.environ),
            capture_output=True, text=True, timeout=LIMIT_S, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"gpupool {' '.join(argv)} hung")


def one_error(proc: subprocess.CompletedProcess[str], *phrases: str) -> str:
    assert proc.returncode == 1, proc
    lines = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    for phrase in phrases:
        assert phrase in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def stack_file(tmp_path: Path) -> Path:
    target = tmp_path / "repo" / "stack.yaml"
    target.parent.mkdir()
    shutil.copy(EXAMPLE, target)
    return target


# -- 14: node reports ----------------------------------------------------------------------------


def good_report() -> dict[str, Any]:
    mig = MigState(True, "enabled", "enabled", (GpuInstance(1, "1g.10gb", 9856, 1, ()),))
    gpu = GpuReport(0, "GPU-1", "NVIDIA A100-SXM4-80GB", mig=mig)
    return NodeReport("n1", "n1", "550.54.15", "12.4", "12.550", (gpu,),
                      (Fault(0, "ecc", "2 uncorrected errors"),)).to_json()  # fmt: skip


def mutated(change: str) -> dict[str, Any]:
    doc = copy.deepcopy(good_report())
    gpu = doc["gpus"][0]
    if change == "faults-number":
        doc["faults"] = 5
    elif change == "mig-list":
        gpu["mig"] = [{"supported": True}]
    elif change == "fault-string":
        doc["faults"] = ["ecc"]
    elif change == "gpus-object":
        doc["gpus"] = {"0": gpu}
    elif change == "instances-string":
        gpu["mig"]["gpu_instances"] = "1g.10gb"
    elif change == "memory-null":
        gpu["memory"] = None
    elif change == "index-string":
        gpu["index"] = "0"
    elif change == "version-list":
        doc["format_version"] = ["1"]
    return doc


SHAPES = ["faults-number", "mig-list", "fault-string", "gpus-object", "instances-string",
          "memory-null", "index-string", "version-list"]  # fmt: skip


@pytest.mark.parametrize("change", SHAPES)
def test_a_report_of_the_wrong_shape_is_one_error_naming_the_file(
    tmp_path: Path, stack_file: Path, change: str
) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "n1.json").write_text(json.dumps(mutated(change)), encoding="utf-8")
    one_error(gpupool("drift", "--node-reports", str(reports), str(stack_file)), "n1.json")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "dev-urandom", "directory", "deep"])
def test_a_report_that_is_no_regular_file_or_nests_deeply_is_refused_at_once(
    tmp_path: Path, stack_file: Path, kind: str
) -> None:
    """A FIFO must not block drift, a device must not be read without bound."""
    reports = tmp_path / "reports"
    reports.mkdir()
    path = reports / "n1.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "dev-urandom":
        path.symlink_to("/dev/urandom")
    elif kind == "directory":
        path.mkdir()
    else:
        path.write_text('{"a": ' * 200_000 + "1" + "}" * 200_000, encoding="utf-8")
    one_error(gpupool("drift", "--node-reports", str(reports), str(stack_file)), "n1.json")


# -- 15: applied records -------------------------------------------------------------------------


def corrupt_record(change: str) -> str:
    doc = build(load_stack(EXAMPLE)).to_json()
    first = doc["resources"][0]
    if change == "facts-string":
        first["facts"] = "node-pool"
    elif change == "inputs-list":
        first["inputs"] = ["x"]
    elif change == "depends-on-number":
        first["depends_on"] = 3
    elif change == "address-number":
        first["address"] = 7
    elif change == "ref-short":
        first["inputs"] = {"cluster_name": {"$ref": ["only-an-address"]}}
    elif change == "lookup-args-list":
        first["inputs"] = {"x": {"$lookup": ["eks_kubeconfig", []]}}
    elif change == "resources-object":
        doc["resources"] = {"a": first}
    elif change == "resource-string":
        doc["resources"] = ["pool.x"]
    elif change == "deep-inputs":
        return json.dumps(doc).replace('"inputs": {', '"inputs": {"x": ' + "[" * 5000 + "]" * 5000
                                       + ", ", 1)  # fmt: skip
    elif change == "deep-json":
        return "[" * 200_000 + "]" * 200_000
    return json.dumps(doc)


RECORDS = ["facts-string", "inputs-list", "depends-on-number", "address-number", "ref-short",
           "lookup-args-list", "resources-object", "resource-string", "deep-inputs",
           "deep-json"]  # fmt: skip


@pytest.mark.parametrize("change", RECORDS)
def test_a_corrupt_record_is_the_documented_error(stack_file: Path, change: str) -> None:
    path = record.record_path(stack_file, STACK)
    path.parent.mkdir(parents=True)
    path.write_text(corrupt_record(change), encoding="utf-8")
    one_error(gpupool("plan", str(stack_file)), "is corrupt or of an unknown format")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_record_that_is_no_regular_file_is_refused_at_once(stack_file: Path, kind: str) -> None:
    path = record.record_path(stack_file, STACK)
    path.parent.mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    one_error(gpupool("plan", str(stack_file)), "cannot read the applied record")
