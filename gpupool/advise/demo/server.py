"""The demo's HTTP server: Prometheus's query API on 127.0.0.1, answered from in-memory series.

It answers what ``advise.prometheus`` asks (Prometheus docs, ``querying/api.md``): ``GET`` or
``POST`` of ``/api/v1/query`` (``query``, ``time``) and ``/api/v1/query_range`` (``query``,
``start``, ``end``, ``step``) with the API's JSON envelope (``status``, ``data.resultType``,
``data.result``, values as strings), a query it cannot evaluate with ``400`` and
``errorType: bad_data``, and ``/-/ready``. It listens on a free loopback port only, in a thread
that :func:`serving` starts and stops.
"""

from __future__ import annotations

import json
import math
import re
import threading
import urllib.parse
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from gpupool.advise.demo.promql import Engine, QueryError, Series, parse

MAX_STEPS = 11_000  # Prometheus refuses a range query of more points a series


def _number(v: float) -> str:
    """Return a sample value as the API writes it (``NaN``, ``+Inf``, shortest decimal)."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    return repr(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)


def answer(engine: Engine, path: str, form: dict[str, str]) -> tuple[int, dict[str, object]]:
    """Return the HTTP status and the API document for one request."""
    try:
        tree = parse(form.get("query", ""))
        if path == "/api/v1/query":
            at = float(form["time"])
            value = engine.instant(tree, at)
            if isinstance(value, float):
                raise QueryError("only instant vectors are answered")
            result: list[dict[str, object]] = [
                {"metric": dict(labels), "value": [at, _number(v)]} for labels, v in value]
            return 200, {"status": "success", "data": {"resultType": "vector", "result": result}}
        start, end, step = float(form["start"]), float(form["end"]), float(form["step"])
        if step <= 0 or end < start or (end - start) / step >= MAX_STEPS:
            raise QueryError("bad range: step > 0, end >= start, under 11,000 points")
        steps = [start + k * step for k in range(int((end - start) // step) + 1)]
        result = [{"metric": dict(labels), "values": [[t, _number(v)] for t, v in points]}
                  for labels, points in engine.matrix(tree, steps)]
        return 200, {"status": "success", "data": {"resultType": "matrix", "result": result}}
    except (QueryError, KeyError, ValueError, re.error) as err:
        return 400, {"status": "error", "errorType": "bad_data", "error": str(err)}


def _handler(engine: Engine) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _reply(self, status: int, document: object) -> None:
            body = json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _serve(self, form: dict[str, str]) -> None:
            path = urllib.parse.urlsplit(self.path).path
            if path == "/-/ready":
                self._reply(200, {"status": "success"})
            elif path in ("/api/v1/query", "/api/v1/query_range"):
                self._reply(*answer(engine, path, form))
            else:
                self._reply(404, {"status": "error", "errorType": "not_found", "error": path})

        def do_GET(self) -> None:
            query = urllib.parse.urlsplit(self.path).query
            self._serve(dict(urllib.parse.parse_qsl(query)))

        def do_POST(self) -> None:
            size = min(int(self.headers.get("Content-Length") or 0), 1024 * 1024)
            body = self.rfile.read(size).decode("utf-8", "replace")
            self._serve(dict(urllib.parse.parse_qsl(body)))

        def log_message(self, format: str, *args: object) -> None:
            """Log nothing: the demo's output is advise's report."""

    return Handler


@contextmanager
def serving(series: Iterable[Series]) -> Iterator[str]:
    """Serve ``series`` on a free port of 127.0.0.1; yield the base URL; stop when done."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(Engine(series)))
    thread = threading.Thread(target=server.serve_forever, name="gpupool-demo-prometheus",
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
