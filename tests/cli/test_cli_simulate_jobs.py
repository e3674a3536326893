"""``gpupool simulate --jobs FILE`` and ``--explain JOB`` on the command line.

The records file is written the way gpupool writes every file (``gpupool/files.py``): never
through a link, never over a folder; a failed run leaves what was there.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gpupool.cli import run
from tests.cli.test_cli_simulate import HEADER, ROWS, STACK

Capture = pytest.CaptureFixture[str]


@pytest.fixture
def workload(tmp_path: Path) -> Path:
    path = tmp_path / "w.csv"
    path.write_text(HEADER + "\n".join(ROWS) + "\n", encoding="utf-8")
    return path


def test_jobs_file_and_summary_match_the_report(workload: Path, tmp_path: Path,
                                                capsys: Capture) -> None:
    out = tmp_path / "jobs.jsonl"
    assert run(["simulate", STACK, "--workload", str(workload), "--format", "json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert run(["simulate", STACK, "--workload", str(workload), "--format", "json",
                "--jobs", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    jobs = doc.pop("jobs")
    assert doc == plain  # nothing else changes
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert jobs["records"] == len(lines) and jobs["file"] == str(out)
    assert sum(r["pods"] for r in lines) == doc["pods"]["submitted"] == 19
    # per reason: the jobs that waited for it, and the seconds (rounded as the lines are)
    for reason, summary in jobs["reasons"].items():
        waited = [r for r in lines if reason in r["reasons"]]
        assert summary["pods"] == sum(r["pods"] for r in waited)
        per_job = {(r["job"], r["line"]): r["reasons"][reason] for r in waited}  # a gang once
        assert summary["jobs"] == len(per_job)
        assert summary["seconds"] == pytest.approx(sum(per_job.values()),
                                                   abs=0.05 + 0.001 * len(per_job))


def test_text_says_where_the_records_went(workload: Path, tmp_path: Path,
                                          capsys: Capture) -> None:
    out = tmp_path / "jobs.jsonl"
    assert run(["simulate", STACK, "--workload", str(workload), "--jobs", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"wrote {len(out.read_text().splitlines())} job records to {out}" in err


@pytest.mark.parametrize("kind", ["link", "folder", "missing folder", "under a file"])
def test_jobs_refuses_links_folders_and_missing_folders(kind: str, workload: Path,
                                                        tmp_path: Path, capsys: Capture) -> None:
    target = tmp_path / "elsewhere.jsonl"
    target.write_text("kept\n")
    path = tmp_path / "jobs.jsonl"
    if kind == "link":
        path.symlink_to(target)
    elif kind == "folder":
        path.mkdir()
    elif kind == "missing folder":
        path = tmp_path / "no" / "jobs.jsonl"
    else:
        path = target / "jobs.jsonl"  # a folder that is a file: nothing can be written there
    assert run(["simulate", STACK, "--workload", str(workload), "--jobs", str(path)]) == 1
    err = capsys.readouterr().err
    said = {"link": "is a symbolic link", "folder": "is a folder",
            "missing folder": "cannot be written", "under a file": "cannot be written"}[kind]
    assert f"--jobs {path}: {said}" in err and "Traceback" not in err
    assert target.read_text() == "kept\n"  # never written through
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in any folder")
def test_jobs_refuses_a_folder_it_cannot_write(workload: Path, tmp_path: Path,
                                               capsys: Capture) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        assert run(["simulate", STACK, "--workload", str(workload),
                    "--jobs", str(ro / "j.jsonl")]) == 1
    finally:
        ro.chmod(0o700)
    assert "cannot be written" in capsys.readouterr().err


def test_explain_tells_the_story(workload: Path, capsys: Capture) -> None:
    assert run(["simulate", STACK, "--workload", str(workload), "--explain", "train-2"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("job train-2 (line 3, tenant team-nlp, 2 pods)\n")
    assert "  submitted at 60 s (0h01m00s)\n" in text and "finished at" in text
    assert run(["simulate", STACK, "--workload", str(workload), "--explain", "train-2",
                "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["job"] == "train-2" and doc["events"][0]["event"] == "submitted"
    assert doc["record"]["submitted"] == 60


def test_explain_an_unknown_job_says_so_with_the_closest(workload: Path,
                                                         capsys: Capture) -> None:
    assert run(["simulate", STACK, "--workload", str(workload), "--explain", "trian-2"]) == 1
    err = capsys.readouterr().err
    assert f"--explain trian-2: no job of {workload} is named so; did you mean train-2" in err


def test_jobs_not_with_saturate(workload: Path, tmp_path: Path, capsys: Capture) -> None:
    assert run(["simulate", STACK, "--workload", str(workload), "--saturate", "50",
                "--jobs", str(tmp_path / "j.jsonl")]) == 64
    assert "not with --saturate" in capsys.readouterr().err


def test_the_text_report_is_the_same_bytes_with_jobs(workload: Path, tmp_path: Path,
                                                     capsys: Capture) -> None:
    assert run(["simulate", STACK, "--workload", str(workload)]) == 0
    plain = capsys.readouterr().out
    assert run(["simulate", STACK, "--workload", str(workload), "--jobs",
                str(tmp_path / "j.jsonl")]) == 0
    assert capsys.readouterr().out == plain


def test_explain_with_jobs_writes_the_file_too(workload: Path, tmp_path: Path,
                                               capsys: Capture) -> None:
    out = tmp_path / "j.jsonl"
    assert run(["simulate", STACK, "--workload", str(workload), "--explain", "cv-1",
                "--jobs", str(out)]) == 0
    assert capsys.readouterr().out.startswith("job cv-1 ")
    assert sum(json.loads(line)["pods"] for line in out.read_text().splitlines()) == 19
    assert run(["simulate", STACK, "--workload", str(workload), "--explain", "cv-1",
                "--format", "markdown"]) == 64


SERVICES = "tests/fixtures/simulate/services"


def test_explain_beside_the_services_tells_the_run_the_report_made(tmp_path: Path,
                                                                   capsys: Capture) -> None:
    # the stack's simulation block names the recommend service's trace: its replicas run
    # beside the jobs in the story's replay as in the report's, and preempt train-2 there
    argv = ["simulate", f"{SERVICES}/stack.yaml", "--workload", f"{SERVICES}/jobs.csv"]
    records = tmp_path / "j.jsonl"
    assert run([*argv, "--jobs", str(records), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [s["service"] for s in report["services"]] == ["recommend"]
    [kept] = [json.loads(line) for line in records.read_text().splitlines()
              if json.loads(line)["job"] == "train-2"]
    assert run([*argv, "--explain", "train-2", "--format", "json"]) == 0
    story = json.loads(capsys.readouterr().out)
    assert story["record"] == kept
    assert "recommend-replica" in story["record"]["preempted_by"]


def test_a_replicas_record_is_submitted_when_the_autoscaler_made_it(tmp_path: Path,
                                                                    capsys: Capture) -> None:
    # a replica's pod is made when KEDA or the HPA scales up, not at the run's start: a
    # record never evicted waited exactly from its submission to its start
    records = tmp_path / "j.jsonl"
    assert run(["simulate", f"{SERVICES}/stack.yaml", "--workload", f"{SERVICES}/jobs.csv",
                "--jobs", str(records)]) == 0
    capsys.readouterr()
    rows = [json.loads(line) for line in records.read_text().splitlines()]
    replicas = [r for r in rows if r["job"] == "recommend-replica"]
    assert len({r["submitted"] for r in replicas}) > 1
    for r in rows:
        if r["started"] is not None and "preempted_by" not in r and "interruptions" not in r:
            assert r["wait"] == pytest.approx(r["started"] - r["submitted"]), r
