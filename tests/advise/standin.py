"""A stand-in HTTP server on 127.0.0.1 for what no real Prometheus answers (a helper).

It answers every request with what a function of the request gives (status, headers, body) and
records each request (method, path, headers, body), so a test can serve a hostile answer (a
redirect, a deep document, a value of +Inf) and see what the client sent, and where.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Seen:
    """One request the stand-in received."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


Answer = tuple[int, dict[str, str], bytes]
Answering = Callable[[Seen], Answer]


@dataclass
class StandIn:
    """A running stand-in: its URL and the requests it received, in order."""

    url: str
    seen: list[Seen] = field(default_factory=list, repr=False)


@contextmanager
def standing_in(answer: Answering) -> Iterator[StandIn]:
    """Serve ``answer`` on a free port of 127.0.0.1 until the ``with`` block ends."""
    state = StandIn("")

    class Handler(http.server.BaseHTTPRequestHandler):
        def _any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            seen = Seen(self.command, self.path, dict(self.headers), self.rfile.read(length))
            state.seen.append(seen)
            status, headers, body = answer(seen)
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _any

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def fixed(status: int, body: bytes, headers: dict[str, str] | None = None) -> Answering:
    """Return an answering function that gives every request the same answer."""
    return lambda _seen: (status, dict(headers or {}), body)
