"""The one way in to a Prometheus HTTP API: instant and range queries, auth, TLS, limits, errors.

Everything ``gpupool advise`` reads from a metrics server goes through :class:`Prometheus`, so the
queries' transport, their size limits and their failures sit in one place. Only the query API of
Prometheus's HTTP API v1 is used (``/api/v1/query``, ``/api/v1/query_range``; Prometheus docs,
``querying/api.md``), which Thanos Query, Mimir and VictoriaMetrics serve as well.

Credentials and CA certificates come from ``advise.promauth`` (re-exported here); a URL with a
``user:password@`` part is refused, and no message repeats its password.

No redirect is followed: a ``Location`` could name another origin (the credentials would go
along, https could become http) and urllib would re-send the POSTed query as an empty GET. A
redirect is an error naming where it points.

Every failure is a :class:`PrometheusError` naming the server and what to do: unreachable, a
timeout, 401/403, a redirect, an answer that is not the API's JSON (a login page, an empty body,
nesting too deep to parse), a query the server refused (its ``error`` text on one line, cut), a
point whose time is not a time, a value neither NaN nor finite within ``MAX_VALUE``, or a result
larger than this client accepts. So every figure a caller gets is finite or NaN.
"""

from __future__ import annotations

import json
import math
import os
import ssl
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import Message
from typing import IO

from gpupool.advise.promauth import (
    PASSWORD_ENV,
    TOKEN_ENV,
    USER_ENV,
    Auth,
    PrometheusError,
    auth_from,
)
from gpupool.advise.window import MAX_TIME

# An answer larger than this is refused rather than held in memory: the advise queries aggregate
# in the server and return one series per GPU, node or pod, far below it.
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
# Prometheus refuses a range query of more than 11,000 points a series (querying/api.md); stay
# under it with room for the step's rounding.
MAX_POINTS_PER_SERIES = 10_000
#: The largest magnitude of a value taken from an answer: what advise reads are GPUs, MiB,
#: bytes, seconds and counts, none of which comes near 10**15 in a real cluster.
MAX_VALUE = 1e15
#: The most points one range query may ask for a series, all its split ranges together.
MAX_RANGE_POINTS = 1_000_000
_QUOTED = 200  # characters of a server's text a message quotes at most

__all__ = [
    "MAX_VALUE", "PASSWORD_ENV", "TOKEN_ENV", "USER_ENV", "Auth", "Prometheus", "PrometheusError",
    "Sample", "Series", "auth_from", "environment", "one_line",
]


@dataclass(frozen=True, slots=True)
class Sample:
    """One series of an instant query's answer: its labels and value (NaN kept as NaN)."""

    labels: Mapping[str, str]
    value: float


@dataclass(frozen=True, slots=True)
class Series:
    """One series of a range query's answer: its labels and (unix seconds, value) points."""

    labels: Mapping[str, str]
    points: tuple[tuple[float, float], ...]


def one_line(text: object, limit: int = _QUOTED) -> str:
    """Return ``text`` on one line (each run of white space one space), cut to ``limit``."""
    flat = " ".join(str(text)[: limit * 4].split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


def _value(raw: object, url: str) -> float:
    """Return a sample's value: NaN, or a finite figure within ``MAX_VALUE``.

    The API sends values as strings, "NaN", "+Inf" and "-Inf" included; an infinity or a figure
    beyond ``MAX_VALUE`` is no measurement of what advise reads, and is refused.
    """
    value: float | None = None
    if isinstance(raw, str) and len(raw) <= 64:
        try:
            value = float(raw)
        except ValueError:
            value = None
    elif isinstance(raw, (int, float)) and not isinstance(raw, bool):
        try:
            value = float(raw)
        except OverflowError:
            value = math.inf
    if value is None:
        raise PrometheusError(
            f"{url} answered a sample value that is not a number: {one_line(raw, 40)!r}"
        )
    if not math.isnan(value) and not abs(value) <= MAX_VALUE:
        raise PrometheusError(
            f"{url} answered a sample value of {one_line(raw, 40)}: gpupool reads figures of "
            f"at most {MAX_VALUE:g} in size (GPUs, MiB, bytes, seconds, counts), and a value "
            "beyond is no measurement"
        )
    return value


def _time(raw: object, url: str) -> float:
    """Return a point's unix time: a finite number from 0 to ``MAX_TIME``."""
    moment = math.nan
    if isinstance(raw, (int, float, str)) and not isinstance(raw, bool):
        try:
            moment = float(raw) if not isinstance(raw, str) or len(raw) <= 64 else math.nan
        except (ValueError, OverflowError):
            moment = math.nan
    if not 0 <= moment <= MAX_TIME:
        raise PrometheusError(
            f"{url} answered a range point whose time is {one_line(raw, 40)!r}, not unix "
            "seconds"
        )
    return moment


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Follow no redirect: the 3xx answer reaches the caller as an ``HTTPError``."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: Message,
        newurl: str,
    ) -> urllib.request.Request | None:
        return None


def _shown(url: str) -> str:
    """Return ``url`` as messages show it: a ``user:password@`` part as ``***@``."""
    scheme, netloc, path, query, fragment = urllib.parse.urlsplit(url)
    if "@" in netloc:
        netloc = "***@" + netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit((scheme, netloc, path, query, fragment))


def _checked_url(url: str) -> str:
    """Return the server's base URL, refusing what is not one (messages hide a password)."""
    try:
        shown = _shown(url)
        parsed = urllib.parse.urlsplit(url)
        _ = parsed.port  # a port that is not a number raises here
    except ValueError:
        raise PrometheusError(
            f"--prometheus {one_line(url.rpartition('@')[2], 80)!r} is not a URL"
        ) from None
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise PrometheusError(
            f"--prometheus {shown!r} is not an http:// or https:// URL of a Prometheus server"
        )
    if "@" in parsed.netloc:
        raise PrometheusError(
            f"--prometheus {shown} holds credentials, which a process list shows: put "
            "user:password in a file and pass --basic-auth-file (or set "
            f"{USER_ENV}/{PASSWORD_ENV})"
        )
    if parsed.query or parsed.fragment:
        raise PrometheusError(
            f"--prometheus {shown!r} holds a query or fragment; give the API's base URL"
        )
    return url.rstrip("/")

class Prometheus:
    """A Prometheus-compatible query API at ``url`` (``http(s)://host:port[/prefix]``)."""

    def __init__(self, url: str, auth: Auth | None = None, timeout: float = 60.0) -> None:
        self.url = _checked_url(url)
        self.auth = auth or Auth()
        self.timeout = timeout
        self.queries = 0  # how many requests were sent: the report and the bench count them
        handlers: list[urllib.request.BaseHandler] = [_NoRedirect()]
        if urllib.parse.urlsplit(self.url).scheme == "https":
            context = ssl.create_default_context(cadata=self.auth.ca_data)
            handlers.append(urllib.request.HTTPSHandler(context=context))
        self._opener = urllib.request.build_opener(*handlers)

    def _get(self, path: str, params: Mapping[str, str]) -> object:
        """POST the form ``params`` to ``path``; return the API's ``data`` (POST: long queries)."""
        body = urllib.parse.urlencode(params).encode()
        request = urllib.request.Request(self.url + path, data=body, method="POST")
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
        request.add_header("Accept", "application/json")
        header = self.auth.header()
        if header is not None:
            request.add_header("Authorization", header)
        self.queries += 1
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                raw = response.read(MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as err:
            raise self._refusal(err, path) from None
        except TimeoutError:
            raise PrometheusError(
                f"{self.url} did not answer within {self.timeout:g} s; try a shorter --since "
                "or a closer server"
            ) from None
        except (urllib.error.URLError, OSError, ValueError) as err:
            reason = one_line(getattr(err, "reason", err))
            raise PrometheusError(f"cannot reach Prometheus at {self.url}: {reason}") from None
        if len(raw) > MAX_RESPONSE_BYTES:
            raise PrometheusError(
                f"{self.url} answered more than {MAX_RESPONSE_BYTES // 2**20} MiB to one query"
            )
        document = _json(raw)
        if not isinstance(document, dict) or document.get("status") not in ("success", "error"):
            raise PrometheusError(
                f"{self.url} did not answer with the Prometheus API's JSON (is it a Prometheus "
                "query endpoint, and not a proxy's login page?)"
            )
        if document["status"] == "error":
            raise PrometheusError(f"{self.url} refused a query: {_reason(document)}")
        return document.get("data")

    def _refusal(self, err: urllib.error.HTTPError, path: str) -> PrometheusError:
        """Return the error an HTTP error status stands for (a redirect, 401/403, the API's)."""
        if 300 <= err.code < 400:
            where = urllib.parse.urljoin(self.url + path, err.headers.get("Location") or "")
            err.close()
            return PrometheusError(
                f"{self.url} answered HTTP {err.code}, a redirect to {one_line(_shown(where))}: "
                "gpupool follows no redirect (the credentials would go along, and the query "
                "would be lost); give --prometheus the URL the server means"
            )
        raw = err.read(MAX_RESPONSE_BYTES + 1) if err.fp is not None else b""
        err.close()
        if err.code in (401, 403):
            return PrometheusError(
                f"{self.url} refused gpupool's credentials (HTTP {err.code}): set "
                f"{TOKEN_ENV} or {USER_ENV}/{PASSWORD_ENV}, or pass --bearer-token-file or "
                "--basic-auth-file"
            )
        message = _api_error(raw)
        if message is None:
            return PrometheusError(
                f"{self.url} answered HTTP {err.code} to {path}, not the Prometheus API"
            )
        return PrometheusError(f"{self.url} refused a query: {message}")

    def query(self, expr: str, at: float) -> list[Sample]:
        """Evaluate ``expr`` at unix time ``at``; the answer must be a vector."""
        data = self._get("/api/v1/query", {"query": expr, "time": f"{at:.3f}"})
        result = _result(data, "vector", self.url)
        samples: list[Sample] = []
        for item in result:
            labels, value = _labels(item, self.url), item.get("value")
            if not isinstance(value, list) or len(value) != 2:
                raise PrometheusError(f"{self.url} answered a vector sample without a value")
            samples.append(Sample(labels, _value(value[1], self.url)))
        return samples

    def query_range(self, expr: str, start: float, end: float, step: float) -> list[Series]:
        """Evaluate ``expr`` from ``start`` to ``end`` every ``step`` seconds.

        A window of more points a series than the server accepts is split into consecutive
        ranges whose series are joined again by their labels.
        """
        if not (step > 0 and -MAX_TIME <= start <= end <= MAX_TIME):
            raise ValueError("a range query needs step > 0 and finite times, end >= start")
        if (end - start) / step > MAX_RANGE_POINTS:
            raise ValueError(f"a range query of more than {MAX_RANGE_POINTS} points a series")
        series: dict[tuple[tuple[str, str], ...], list[tuple[float, float]]] = {}
        labels_of: dict[tuple[tuple[str, str], ...], Mapping[str, str]] = {}
        chunk = step * (MAX_POINTS_PER_SERIES - 1)
        lo = start
        while lo <= end:
            hi = min(end, lo + chunk)
            data = self._get(
                "/api/v1/query_range",
                {"query": expr, "start": f"{lo:.3f}", "end": f"{hi:.3f}", "step": f"{step:g}"},
            )
            for item in _result(data, "matrix", self.url):
                labels = _labels(item, self.url)
                key = tuple(sorted(labels.items()))
                labels_of[key] = labels
                points = series.setdefault(key, [])
                points.extend(_points(item.get("values"), self.url))
            lo = hi + step
        return [Series(labels_of[key], tuple(points)) for key, points in sorted(series.items())]


def _json(raw: bytes) -> object:
    """Return the parsed answer, or None when it is not JSON (or nested too deep to parse)."""
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


def _points(values: object, url: str) -> list[tuple[float, float]]:
    if not isinstance(values, list):
        raise PrometheusError(f"{url} answered a range series without values")
    points: list[tuple[float, float]] = []
    for pair in values:
        if not isinstance(pair, list) or len(pair) != 2:
            raise PrometheusError(f"{url} answered a range point that is not [time, value]")
        points.append((_time(pair[0], url), _value(pair[1], url)))
    return points


def _api_error(raw: bytes) -> str | None:
    document = _json(raw)
    if isinstance(document, dict) and document.get("status") == "error":
        return _reason(document)
    return None


def _reason(document: Mapping[str, object]) -> str:
    """Return the API's ``error`` text of an error answer on one line (never empty)."""
    return one_line(document.get("error", "")) or "it gave no reason"


def _result(data: object, kind: str, url: str) -> list[dict[str, object]]:
    if not isinstance(data, dict) or data.get("resultType") != kind:
        got = data.get("resultType") if isinstance(data, dict) else type(data).__name__
        raise PrometheusError(f"{url} answered a {one_line(got, 40)} where a {kind} was asked for")
    result = data.get("result")
    if not isinstance(result, list) or not all(isinstance(item, dict) for item in result):
        raise PrometheusError(f"{url} answered a {kind} that is not a list of series")
    return result


def _labels(item: Mapping[str, object], url: str) -> dict[str, str]:
    metric = item.get("metric", {})
    if not isinstance(metric, dict):
        raise PrometheusError(f"{url} answered a series whose labels are not a map")
    return {str(k): str(v) for k, v in metric.items()}


def environment() -> Mapping[str, str]:
    """Return the process environment (callers and tests may pass their own mapping)."""
    return os.environ
