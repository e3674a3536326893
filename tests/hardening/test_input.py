"""Hostile files through the command line: a diagnostic or one clear line, in bounded time/memory.

Each hostile file goes through ``validate``, ``plan`` and ``render`` exactly as a user runs them
(``gpupool.cli.run``), in one child process whose address space is capped at 1 GiB
(``RLIMIT_AS``) and whose wall time is capped by the parent. The child reports each run as a JSON
line as soon as it finishes, so a hang names the case it hung on. Every run must exit 1 with
either file:line:col diagnostics or a single ``error:`` line on stderr, never a traceback or an
"internal error", and use no more than a few CPU seconds.

Limits (gpupool/spec/load.py, stated in the README): files up to 8 MiB (a 10 MB document is
refused without being read past the limit; a valid stack padded to just under 8 MiB is accepted),
nesting up to 64 levels, at most 200,000 values and 8 MiB of key and scalar text after alias
expansion.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gpupool.spec import load
from tests.paths import EXAMPLES, ROOT

EXAMPLE = EXAMPLES / "aws-inference-l4.yaml"
MEMORY_LIMIT = 1024**3
# A blow-up guard, not a speed test (bench/ measures speed): the CPU seconds one command may
# burn, counted by the child itself, so a loaded CI machine cannot fail it. The slowest case
# takes about a second; quadratic or exponential work on a hostile file takes minutes.
PER_RUN_CPU_S = 30.0
TOTAL_S = 240.0

CHILD = r"""
import io, json, resource, sys, time
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from gpupool.cli import run
for line in sys.stdin:
    case = json.loads(line)
    out, err = io.StringIO(), io.StringIO()
    real = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    start = time.process_time()
    try:
        code = run(case["argv"])
    finally:
        sys.stdout, sys.stderr = real
    case.update(code=code, stdout=out.getvalue()[-4000:], stderr=err.getvalue()[-4000:],
                cpu_seconds=time.process_time() - start)
    print(json.dumps(case), flush=True)
"""


def _alias_bomb() -> str:
    lines = ["a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    for i in range(1, 10):
        prev, cur = chr(96 + i), chr(97 + i)
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 10) + "]")
    return "\n".join(lines) + "\n"


def _string_bomb() -> str:
    """1 MiB anchored once, aliased 2,000 times: a 1 MiB file that expands to 2 GiB of text."""
    lines = ["apiVersion: gpupool.io/v1", "kind: GpuPoolStack", "metadata:", "  name: x",
             "  labels:", "    k0: &big " + "x" * 2**20]  # fmt: skip
    lines += [f"    k{i}: *big" for i in range(1, 2000)]
    return "\n".join(lines) + "\n"


def _long_value() -> str:
    """A valid-looking stack whose instance type is 7 MiB long (catalog suggestions included)."""
    text = EXAMPLE.read_text(encoding="utf-8")
    long = "instanceType: g6" + "x1." * (7 * 2**20 // 3)
    assert "instanceType: g6e.2xlarge" in text
    return text.replace("instanceType: g6e.2xlarge", long)


def _padded(size: int) -> bytes:
    """The example stack followed by a comment, ``size`` bytes in all."""
    head = EXAMPLE.read_bytes() + b"\n# "
    return head + b"x" * (size - len(head) - 1) + b"\n"


def make_cases(tmp: Path) -> dict[str, tuple[Path, int]]:
    """Write every hostile file; return name -> (path, expected exit code)."""
    files: dict[str, bytes] = {
        "alias-bomb": _alias_bomb().encode(),
        "string-alias-bomb": _string_bomb().encode(),
        "10MB-document": _padded(10 * 1000 * 1000),
        "just-over-limit": _padded(load.MAX_BYTES + 1),
        "long-value-under-limit": _long_value().encode(),
        "deep-flow-nesting": ("a: " + "[" * 10_000 + "]" * 10_000 + "\n").encode(),
        "deep-block-sequences": ("a:\n  " + "- " * 10_000 + "x\n").encode(),
        # indentation makes deep block mappings quadratic in size: 2,000 levels is 2 MB
        "deep-block-mappings": ("".join(" " * i + f"k{i}:\n" for i in range(2_000))).encode(),
        "too-many-values": ("a: [" + ",".join(["1"] * (load.MAX_NODES + 1)) + "]\n").encode(),
        "non-utf8": b"apiVersion: gpupool.io/v1\nkind: caf\xe9\n",
        "utf16": "apiVersion: gpupool.io/v1\n".encode("utf-16"),
        "nul-byte": b"apiVersion: gpupool.io/v1\x00\nkind: GpuPoolStack\n",
        "binary": bytes(range(256)) * 64 + os.urandom(4096),
        "empty": b"",
        "whitespace": b"  \n\t\n# just a comment\n",
        "not-a-mapping": b"- a\n- b\n",
        "python-tag": b"a: !!python/object/apply:os.system ['echo pwned']\n",
        "multi-document": b"a: 1\n---\nb: 2\n",
    }
    cases: dict[str, tuple[Path, int]] = {}
    for name, data in files.items():
        path = tmp / f"{name}.yaml"
        path.write_bytes(data)
        cases[name] = (path, 1)
    cases["just-under-limit"] = (tmp / "just-under-limit.yaml", 0)
    cases["just-under-limit"][0].write_bytes(_padded(load.MAX_BYTES))
    directory = tmp / "a-directory.yaml"
    directory.mkdir()
    fifo = tmp / "fifo.yaml"
    os.mkfifo(fifo)
    to_fifo = tmp / "link-to-fifo.yaml"
    to_fifo.symlink_to(fifo)
    loop = tmp / "loop.yaml"
    loop.symlink_to(loop)
    dangling = tmp / "dangling.yaml"
    dangling.symlink_to(tmp / "nowhere.yaml")
    not_files = {
        "directory": directory,
        "fifo": fifo,
        "symlink-to-fifo": to_fifo,
        "symlink-loop": loop,
        "dangling-symlink": dangling,
        "missing": tmp / "missing.yaml",
        "char-device": Path("/dev/zero"),
    }
    for name, path in not_files.items():
        cases[name] = (path, 1)
    return cases


def run_cli(cases: list[dict[str, object]]) -> list[dict[str, object]]:
    """Run each case's argv in one memory-capped child; fail naming the case that hung."""
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(MEMORY_LIMIT)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    feed = "".join(json.dumps(c) + "\n" for c in cases)
    try:
        out, err = proc.communicate(feed, timeout=TOTAL_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        done = [json.loads(line) for line in out.splitlines()]
        hung = cases[len(done)] if len(done) < len(cases) else None
        pytest.fail(f"hung (over {TOTAL_S:.0f} s) on {hung}")
    results = [json.loads(line) for line in out.splitlines()]
    assert proc.returncode == 0, err[-3000:]
    assert len(results) == len(cases), err[-3000:]
    return results


def _one_clear_outcome(result: dict[str, object]) -> None:
    """Diagnostics (file:line:col) or exactly one 'error:' line; never a traceback."""
    err = str(result["stderr"])
    assert "Traceback" not in err and "internal error" not in err, result
    lines = err.strip().splitlines()
    assert lines, result
    if lines[0].startswith("error: "):
        assert len(lines) == 1, result
    else:
        # file:line:col: severity: summary [code]; an info (advice) may come before the error
        assert re.match(r".+:\d+:\d+: (error|warning|info): ", lines[0]), result
        assert any(": error: " in line for line in lines), result


def test_hostile_files_through_validate_plan_and_render(tmp_path: Path) -> None:
    cases = make_cases(tmp_path)
    argvs = []
    for name, (path, expected) in cases.items():
        for command in ("validate", "plan", "render"):
            argv = [command, str(path)]
            if command == "render":
                argv += ["--out", str(tmp_path / "out" / name)]
            argvs.append({"case": name, "argv": argv, "expected": expected})
    results = run_cli(argvs)
    for result in results:
        assert result["code"] == result["expected"], result
        assert float(str(result["cpu_seconds"])) < PER_RUN_CPU_S, result
        if result["expected"] == 1:
            _one_clear_outcome(result)
    by_case = {(r["case"], r["argv"][0]): r for r in results}
    # what each limit says
    assert "[yaml.too-large]" in str(by_case["alias-bomb", "validate"]["stderr"])
    assert "MiB of text" in str(by_case["string-alias-bomb", "validate"]["stderr"])
    assert "[file.too-large]" in str(by_case["10MB-document", "validate"]["stderr"])
    assert "[file.too-large]" in str(by_case["just-over-limit", "validate"]["stderr"])
    assert "[yaml.too-deep]" in str(by_case["deep-flow-nesting", "validate"]["stderr"])
    assert "[yaml.too-deep]" in str(by_case["deep-block-sequences", "validate"]["stderr"])
    assert "[yaml.too-deep]" in str(by_case["deep-block-mappings", "validate"]["stderr"])
    assert "[yaml.too-large]" in str(by_case["too-many-values", "validate"]["stderr"])
    assert "not a regular file" in str(by_case["fifo", "plan"]["stderr"])
    assert "not a regular file" in str(by_case["char-device", "render"]["stderr"])
    # a value megabytes long is quoted, not copied, in its diagnostic
    long_err = str(by_case["long-value-under-limit", "validate"]["stderr"])
    assert "characters cut" in long_err and "Closest:" in long_err
    assert len(long_err) < 4000
    # the file just under the limit is an ordinary stack
    assert "Rendered" in str(by_case["just-under-limit", "render"]["stdout"])


def test_oversized_file_is_not_read_past_the_limit(tmp_path: Path) -> None:
    """A huge file costs no more than the limit: gpupool reads MAX_BYTES + 1 and stops."""
    big = tmp_path / "huge.yaml"
    with open(big, "wb") as fh:  # sparse: 4 GiB on paper, nothing on disk
        fh.truncate(4 * 1024**3)
    [result] = run_cli([{"case": "sparse-4GiB", "argv": ["validate", str(big)]}])
    assert result["code"] == 1
    assert "[file.too-large]" in str(result["stderr"])
    assert float(str(result["cpu_seconds"])) < PER_RUN_CPU_S


def test_a_fifo_swapped_in_after_the_check_does_not_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the type check and the open, the path may change: the open still never waits."""
    import signal

    regular = tmp_path / "regular.yaml"
    regular.write_text("a: 1\n", encoding="utf-8")
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    real_stat = os.stat
    monkeypatch.setattr(load.os, "stat", lambda p, *a, **k: real_stat(regular))

    def hung(*_: object) -> None:
        raise TimeoutError("opening the FIFO blocked")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(5)
    try:
        with pytest.raises(load.InputError, match="not a regular file"):
            load.read_text(fifo)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
