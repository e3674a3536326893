"""State safety: a killed writer never tears the applied record, and two ``up`` runs never overlap.

The first test forks a writer that records two large graphs in turn, as fast as it can, and
SIGKILLs it at random moments, 30 times. After every kill the record must read back as one of
the two graphs (never a torn mix), and the temporary files killed writers leave behind must not
pile up: each new write removes those of writers that are gone.

The second starts ``gpupool up`` on a stack through the stand-in ``pulumi`` (slowed down with
``FAKE_PULUMI_DELAY_S``), and while it holds the stack, runs ``up`` and ``destroy`` again: both
must fail at once with one line naming the holder (its pid and command), and the first run must
still finish and record what it applied.
"""

from __future__ import annotations

import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from gpupool import assemble, record
from gpupool.cli import run
from gpupool.graph import Resource, ResourceGraph
from gpupool.lock import lock_path
from tests import fake_pulumi
from tests.paths import EXAMPLES, ROOT
from tests.stacks import load_stack

EXAMPLE = EXAMPLES / "aws-inference-l4.yaml"
KILLS = 30


def _graph(tag: str, size: int = 600) -> ResourceGraph:
    """A graph of ``size`` resources (about 200 kB of JSON) whose every input says ``tag``."""
    resources = tuple(
        Resource(
            address=f"pool.p{i}.node_group",
            type="aws:eks/nodeGroup:NodeGroup",
            name=f"p{i}",
            inputs={"tag": tag, "pad": tag * 40, "instance_types": ["g6.xlarge"], "n": i},
            replace_on=("instance_types",),
            owner=f"pool:p{i}",
            facts={"kind": "node-pool", "pool": f"p{i}"},
        )
        for i in range(size)
    )
    return ResourceGraph("ml-prod", "aws", resources)


def _kill_midway(child: Callable[[Callable[[], None]], None], delay: float) -> None:
    """Fork ``child``, let it get going, SIGKILL it ``delay`` seconds later.

    ``child(ready)`` calls ``ready()`` once it has done one whole write and then loops writing; it
    never returns into pytest. The kill must be what ended it.
    """
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(ready_r)
            child(lambda: os.write(ready_w, b"1") and None)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(ready_w)
    try:
        assert select.select([ready_r], [], [], 30)[0], "the child never got going"
        assert os.read(ready_r, 1) == b"1"
    finally:
        os.close(ready_r)
    time.sleep(delay)
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status), "the child died on its own"


def _temps(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and SIGKILL")
def test_killed_writers_leave_the_old_or_the_new_record(tmp_path: Path) -> None:
    old, new = _graph("old"), _graph("new")
    path = record.record_path(tmp_path / "stack.yaml", "ml-prod")
    record.write_applied(path, old)
    rng = random.Random(9)
    seen: set[str] = set()
    left_behind = 0

    def writer(ready: Callable[[], None]) -> None:
        # serialize once: the loop then spends its time writing, where a kill matters
        texts = {id(old): old.dumps(), id(new): new.dumps()}
        ResourceGraph.dumps = lambda self, t=texts: t[id(self)]  # type: ignore[method-assign]
        record.write_applied(path, new)
        ready()
        while True:
            record.write_applied(path, old)
            record.write_applied(path, new)

    for _ in range(KILLS):
        _kill_midway(writer, rng.uniform(0, 0.05))
        got = record.read_applied(path)  # raises StateError on a torn record
        assert got in (old, new)
        seen.add("old" if got == old else "new")
        temps = _temps(path.parent)
        # at most the one the killed writer was filling: the writer before it was cleaned up
        assert len(temps) <= 1, temps
        left_behind += len(temps)
    record.write_applied(path, old)
    assert _temps(path.parent) == []
    assert sorted(p.name for p in path.parent.iterdir()) == ["ml-prod.json"]
    print(f"\n{KILLS} kills: records seen {sorted(seen)}, {left_behind} left a temp file")
    assert left_behind, "no kill landed inside a write: the test lost its point"


def test_a_temp_file_of_a_live_writer_is_kept(tmp_path: Path) -> None:
    """Only temp files of writers that are gone are removed; a live writer's is not touched."""
    path = tmp_path / "ml-prod.json"
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        mine = path.parent / f".ml-prod.json.{live.pid}.abc.tmp"
        mine.write_text("half", encoding="utf-8")
        dead = path.parent / ".ml-prod.json.999999999.abc.tmp"
        dead.write_text("half", encoding="utf-8")
        other = path.parent / ".other.json.999999999.abc.tmp"
        other.write_text("not ours", encoding="utf-8")
        record.write_applied(path, _graph("x", 2))
        assert mine.exists() and other.exists() and not dead.exists()
    finally:
        live.kill()
        live.wait()


# -- two up runs on one stack -------------------------------------------------------------------


@pytest.fixture
def engine_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The stand-in pulumi first on PATH; the environment a child gpupool runs with."""
    fake_pulumi.install(tmp_path / "bin", monkeypatch)
    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE", "correct horse battery")
    monkeypatch.setenv("FAKE_PULUMI_LOG", str(tmp_path / "calls.jsonl"))
    for name in ("FAKE_PULUMI_SCENARIO", "PULUMI_BACKEND_URL", "FAKE_PULUMI_DELAY_S"):
        monkeypatch.delenv(name, raising=False)
    return dict(os.environ)


def _wait_for_holder(lock: Path, pid: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            if json.loads(lock.read_text(encoding="utf-8") or "{}").get("pid") == pid:
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.02)
    pytest.fail("the first run never took the lock")


def test_second_up_is_refused_naming_the_holder(
    tmp_path: Path, engine_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    stack_file = tmp_path / "work" / "stack.yaml"
    stack_file.parent.mkdir()
    shutil.copy(EXAMPLE, stack_file)
    first = subprocess.Popen(
        [sys.executable, "-m", "gpupool", "up", "--yes", str(stack_file)],
        env={**engine_env, "FAKE_PULUMI_DELAY_S": "2"},
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for_holder(lock_path(stack_file, "inference-prod"), first.pid, first)
        for argv in (["up", "--yes"], ["destroy", "--yes"]):
            started = time.monotonic()
            assert run([*argv, str(stack_file)]) == 1
            assert time.monotonic() - started < 10  # refused at once, not after waiting
            err = capsys.readouterr().err
            [line] = err.strip().splitlines()
            assert line.startswith("error: stack is locked by "), line
            assert f"pid {first.pid}" in line and "'up'" in line, line
        out, err = first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 0, err
    assert "Apply complete" in out
    assert record.read_applied(record.record_path(stack_file, "inference-prod")) is not None
    # the lock went with the first run: a third one proceeds
    assert run(["up", "--yes", str(stack_file)]) == 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and SIGKILL")
def test_killed_renders_leave_every_file_whole(tmp_path: Path) -> None:
    """A render killed at any point leaves each program file as one render or the other wrote it.

    A torn ``__main__.py`` could be valid Python declaring fewer resources, which ``pulumi up``
    would take as an order to delete the rest.
    """
    import dataclasses

    from gpupool import render
    stack = load_stack(EXAMPLE)
    bigger = dataclasses.replace(
        stack,
        pools=tuple(
            dataclasses.replace(p, nodes=dataclasses.replace(p.nodes, max=p.nodes.max + 1))
            for p in stack.pools
        ),
    )
    variants = [(s, assemble.build(s)) for s in (stack, bigger)]
    texts = [render._files(s, g, s.backend) for s, g in variants]
    assert texts[0]["__main__.py"] != texts[1]["__main__.py"]
    out = tmp_path / "out"
    render.render(*variants[0], out)
    rng = random.Random(11)

    def renderer(ready: Callable[[], None]) -> None:
        cached = {id(s): t for (s, _), t in zip(variants, texts, strict=True)}
        render._files = lambda s, g, backend, c=cached: c[id(s)]  # writing is what a kill tears
        render.render(*variants[1], out)
        ready()
        while True:
            render.render(*variants[0], out)
            render.render(*variants[1], out)

    for _ in range(KILLS):
        _kill_midway(renderer, rng.uniform(0, 0.03))
        for path in out.rglob("*"):
            if path.is_file() and not path.name.startswith(".gpupool-tmp."):
                rel = path.relative_to(out).as_posix()
                body = path.read_text(encoding="utf-8")
                if rel == ".gpupool-files":
                    assert body in {"".join(f"{r}\n" for r in sorted(t)) for t in texts}
                else:
                    assert body in {t[rel] for t in texts if rel in t}, f"{rel} is torn"
        temps = [p for p in out.rglob(".gpupool-tmp.*")]
        assert len(temps) <= 1, temps  # the killed renderer's own; earlier ones were removed
    render.render(*variants[0], out)
    assert not list(out.rglob(".gpupool-tmp.*"))


def test_a_holder_that_has_not_written_its_name_yet_is_still_named(tmp_path: Path) -> None:
    """Between taking the lock and writing who it is, the holder is still reported sensibly."""
    from gpupool.errors import StackLockedError
    from gpupool.lock import stack_lock

    path = lock_path(tmp_path / "s.yaml", "prod")
    path.parent.mkdir(parents=True)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl, os, sys, time\n"
         "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
         "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(30)\n",
         str(path)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(StackLockedError, match="just starting"), stack_lock(path, "up"):
            pass
    finally:
        holder.kill()
        holder.wait()
