"""A real Prometheus server for the tests, loaded with series the tests write (a helper).

The series are written as OpenMetrics text, turned into TSDB blocks by Prometheus's own
``promtool tsdb create-blocks-from openmetrics`` (Prometheus docs, ``storage.md``, "Backfilling
from OpenMetrics format"), and served by Debian's ``prometheus`` on 127.0.0.1 at a free port with
no scrape targets; the server is stopped when the ``with`` block ends. Without the binaries the
test skips, and fails where CI requires them (``.ci/run`` installs Debian's ``prometheus``).
"""

from __future__ import annotations

import math
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

PROMETHEUS = shutil.which("prometheus")
PROMTOOL = shutil.which("promtool")
_REQUIRED = os.environ.get("GPUPOOL_REQUIRE_PROMTOOL") == "1" or bool(os.environ.get("CI"))


@dataclass
class Family:
    """One metric family: its name, type (gauge, counter) and series (labels -> points)."""

    name: str
    kind: str = "gauge"
    series: list[tuple[dict[str, str], list[tuple[float, float]]]] = field(default_factory=list)

    def add(self, labels: Mapping[str, str], points: Iterable[tuple[float, float]]) -> None:
        """Add one series: ``points`` are (unix seconds, value) in time order."""
        self.series.append((dict(labels), list(points)))


def _value(v: float) -> str:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    return repr(float(v))


def openmetrics(families: Iterable[Family]) -> str:
    """The OpenMetrics text of ``families`` (each family's samples together, ``# EOF`` last)."""
    out: list[str] = []
    for family in families:
        out.append(f"# TYPE {family.name} {family.kind}")
        sample = family.name + ("_total" if family.kind == "counter" else "")
        for labels, points in family.series:
            rendered = ",".join(
                f'{k}="{v.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"'
                for k, v in sorted(labels.items())
            )
            for t, v in points:
                out.append(f"{sample}{{{rendered}}} {_value(v)} {t:.3f}")
    out.append("# EOF")
    return "\n".join(out) + "\n"


def require() -> tuple[str, str]:
    """Return (prometheus, promtool); skip without them, or fail where CI requires them."""
    if PROMETHEUS is None or PROMTOOL is None:
        if _REQUIRED:
            pytest.fail("prometheus and promtool must be on PATH in CI (.ci/run installs them)")
        pytest.skip("prometheus/promtool not on PATH (apt-get install prometheus)")
    return PROMETHEUS, PROMTOOL


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _build(promtool: str, source: Path, data: Path) -> None:
    built = subprocess.run(
        # promtool's hidden --max-block-duration (cmd/promtool/main.go): one block a month instead
        # of one every two hours, which is thirty times faster to build for a 14-day scenario
        [promtool, "tsdb", "create-blocks-from", "openmetrics", "--max-block-duration=720h",
         str(source), str(data)],
        capture_output=True, text=True, timeout=3600, check=False,
    )
    if built.returncode != 0:
        raise AssertionError("promtool could not build the blocks:\n" + built.stderr[-4000:])


@contextmanager
def serving(families: Iterable[Family], workdir: Path) -> Iterator[str]:
    """Serve ``families`` from a fresh Prometheus on 127.0.0.1; yield its URL; stop it after."""
    workdir.mkdir(parents=True, exist_ok=True)
    source = workdir / "series.om"
    source.write_text(openmetrics(families), encoding="utf-8")
    with serving_file(source, workdir) as url:
        yield url


@contextmanager
def serving_file(source: Path, workdir: Path) -> Iterator[str]:
    """Serve the OpenMetrics file ``source``; yield the URL.

    The blocks are built in ``workdir/tsdb`` unless a block is there already (the benchmark
    builds them once and reuses them).
    """
    prometheus, promtool = require()
    data = workdir / "tsdb"
    data.mkdir(parents=True, exist_ok=True)
    if not any(data.iterdir()):
        _build(promtool, source, data)
    config = workdir / "prometheus.yml"
    config.write_text("global:\n  evaluation_interval: 1m\n", encoding="utf-8")
    port = _free_port()
    log = (workdir / "prometheus.log").open("wb")
    process = subprocess.Popen(
        [
            prometheus,
            f"--config.file={config}",
            f"--storage.tsdb.path={data}",
            "--storage.tsdb.retention.time=100y",
            f"--web.listen-address=127.0.0.1:{port}",
            "--log.level=warn",
        ],
        stdout=log, stderr=subprocess.STDOUT, cwd=workdir,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise AssertionError(
                    "prometheus exited: " + (workdir / "prometheus.log").read_text()[-4000:]
                )
            try:
                with urllib.request.urlopen(url + "/-/ready", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError("prometheus did not become ready within 60 s")
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def demo_series(families: Iterable[Family]) -> list[Any]:
    """The families as the demo server's series (``gpupool/advise/demo/promql.py``)."""
    from gpupool.advise.demo import promql

    out = []
    for family in families:
        for labels, points in family.series:
            s = promql.Series(promql.labels_of(family.name, labels))
            s.times.extend(t for t, _ in points)
            s.values.extend(float(v) for _, v in points)
            out.append(s)
    return out


@contextmanager
def served(kind: str, families: list[Family], workdir: Path) -> Iterator[str]:
    """Serve the families from the demo server (``kind`` "demo") or a real Prometheus."""
    if kind == "demo":
        from gpupool.advise.demo import server as demo_server

        with demo_server.serving(demo_series(families)) as url:
            yield url
    else:
        with serving(families, workdir / "prometheus") as url:
            yield url
