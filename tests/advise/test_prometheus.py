"""gpupool.advise.prometheus against a real Prometheus server (Debian's, started per test)."""

from __future__ import annotations

import http.server
import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gpupool.advise import prometheus as prom
from tests.advise.promserver import Family, serving

NOW = (int(time.time()) // 3600 - 2) * 3600  # a whole hour, two hours ago: backfilled blocks


def _fb_used() -> Family:
    family = Family("DCGM_FI_DEV_FB_USED")
    for gpu, base in (("0", 1000.0), ("1", 30000.0)):
        family.add(
            {"gpu": gpu, "Hostname": "node-a", "modelName": "NVIDIA H100 80GB HBM3"},
            [(NOW - 3600 + 60 * i, base + i) for i in range(61)],
        )
    return family


def test_instant_and_range_queries_against_a_real_server(tmp_path: Path) -> None:
    with serving([_fb_used()], tmp_path) as url:
        client = prom.Prometheus(url)
        samples = client.query("max_over_time(DCGM_FI_DEV_FB_USED[1h])", NOW)
        got = sorted((s.labels["gpu"], s.value) for s in samples)
        assert got == [("0", 1060.0), ("1", 30060.0)]
        series = client.query_range('DCGM_FI_DEV_FB_USED{gpu="0"}', NOW - 3600, NOW, 60)
        assert len(series) == 1
        assert series[0].points[0] == (NOW - 3600, 1000.0)
        assert series[0].points[-1] == (NOW, 1060.0)


def test_a_long_range_is_split_and_joined_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Prometheus refuses more than 11,000 points a series (querying/api.md "Range queries");
    # with the client's limit lowered, one hour at 60 s takes several requests and the series
    # comes back whole, each point once.
    monkeypatch.setattr(prom, "MAX_POINTS_PER_SERIES", 10)
    with serving([_fb_used()], tmp_path) as url:
        client = prom.Prometheus(url)
        series = client.query_range('DCGM_FI_DEV_FB_USED{gpu="1"}', NOW - 3600, NOW, 60)
        assert client.queries == 7
        times = [t for t, _ in series[0].points]
        assert times == [NOW - 3600 + 60 * i for i in range(61)]


def test_a_query_the_server_refuses_is_its_error(tmp_path: Path) -> None:
    with (
        serving([_fb_used()], tmp_path) as url,
        pytest.raises(prom.PrometheusError, match=r"refused a query: .*parse error"),
    ):
        prom.Prometheus(url).query("sum(", NOW)


def test_unreachable_server() -> None:
    with pytest.raises(prom.PrometheusError, match=r"cannot reach Prometheus at http://127\.0\.0\.1:9"):
        prom.Prometheus("http://127.0.0.1:9", timeout=5).query("up", NOW)


@pytest.mark.parametrize("url", ["127.0.0.1:9090", "ftp://x", "http://", "file:///etc/passwd"])
def test_not_a_prometheus_url(url: str) -> None:
    with pytest.raises(prom.PrometheusError, match="is not an http:// or https:// URL"):
        prom.Prometheus(url)


@contextmanager
def _answering(status: int, body: bytes, seen: list[dict[str, str]]) -> Iterator[str]:
    # A stand-in at the HTTP boundary for what no Prometheus answers: a proxy's login page, an
    # empty body, a refusal of credentials.
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.append(dict(self.headers))
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    ("status", "body", "message"),
    [
        (200, b"", "did not answer with the Prometheus API's JSON"),
        (200, b"<html><form>login</form></html>", "did not answer with the Prometheus API's JSON"),
        (
            200,
            b'{"status":"success","data":{"resultType":"matrix","result":[]}}',
            "answered a matrix where a vector",
        ),
        (401, b"no", "refused gpupool's credentials \\(HTTP 401\\)"),
        (502, b"bad gateway", "answered HTTP 502 to /api/v1/query, not the Prometheus API"),
    ],
)
def test_answers_that_are_not_the_api(status: int, body: bytes, message: str) -> None:
    with _answering(status, body, []) as url, pytest.raises(prom.PrometheusError, match=message):
        prom.Prometheus(url).query("up", NOW)


def test_credentials_are_sent_from_the_environment_and_files(tmp_path: Path) -> None:
    seen: list[dict[str, str]] = []
    ok = (
        b'{"status":"success","data":{"resultType":"vector",'
        b'"result":[{"metric":{},"value":[1,"NaN"]}]}}'
    )
    with _answering(200, ok, seen) as url:
        auth = prom.auth_from({prom.TOKEN_ENV: "s3cret"})
        [sample] = prom.Prometheus(url, auth).query("up", NOW)
        assert math.isnan(sample.value)
        secret = tmp_path / "basic"
        secret.write_text("alice:pa:ss\n")
        prom.Prometheus(url, prom.auth_from({}, basic_auth_file=secret)).query("up", NOW)
    assert seen[0]["Authorization"] == "Bearer s3cret"
    assert seen[1]["Authorization"] == "Basic YWxpY2U6cGE6c3M="  # alice:pa:ss


def test_bad_credentials_settings(tmp_path: Path) -> None:
    with pytest.raises(prom.PrometheusError, match="both a bearer token and basic auth"):
        prom.auth_from({prom.TOKEN_ENV: "t", prom.USER_ENV: "u"})
    empty = tmp_path / "token"
    empty.write_text("\n")
    with pytest.raises(prom.PrometheusError, match=r"token file .* is empty"):
        prom.auth_from({}, token_file=empty)
    with pytest.raises(prom.PrometheusError, match="cannot read the token file"):
        prom.auth_from({}, token_file=tmp_path / "missing")
    bad = tmp_path / "basic"
    bad.write_text("no-colon")
    with pytest.raises(prom.PrometheusError, match="one line 'user:password'"):
        prom.auth_from({}, basic_auth_file=bad)
