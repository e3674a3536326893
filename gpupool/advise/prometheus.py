"""The one way in to a Prometheus HTTP API: instant and range queries, auth, TLS, limits, errors.

Everything ``gpupool advise`` reads from a metrics server goes through :class:`Prometheus`, so the
queries' transport, their size limits and their failures sit in one place. Only the query API of
Prometheus's HTTP API v1 is used (``/api/v1/query``, ``/api/v1/query_range``; Prometheus docs,
``querying/api.md``), which Thanos Query, Mimir and VictoriaMetrics serve as well.

Auth comes from the environment or from files, never from a command line a process list shows:

* ``GPUPOOL_PROMETHEUS_TOKEN`` or a token file: ``Authorization: Bearer <token>``;
* ``GPUPOOL_PROMETHEUS_USER`` and ``GPUPOOL_PROMETHEUS_PASSWORD``, or a ``user:password`` file:
  basic auth;
* a CA file for a server whose certificate a private CA signed.

Every failure is a :class:`PrometheusError` naming the server and what to do: unreachable, a
timeout, 401/403, an answer that is not the API's JSON (a login page, an empty body), a query the
server refused (its ``error`` text), or a result larger than this client accepts.
"""

from __future__ import annotations

import base64
import json
import math
import os
import ssl
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gpupool.errors import GpupoolError

# An answer larger than this is refused rather than held in memory: the advise queries aggregate
# in the server and return one series per GPU, node or pod, far below it.
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
# Prometheus refuses a range query of more than 11,000 points a series (querying/api.md); stay
# under it with room for the step's rounding.
MAX_POINTS_PER_SERIES = 10_000
TOKEN_ENV = "GPUPOOL_PROMETHEUS_TOKEN"
USER_ENV = "GPUPOOL_PROMETHEUS_USER"
PASSWORD_ENV = "GPUPOOL_PROMETHEUS_PASSWORD"
_SECRET_FILE_LIMIT = 64 * 1024


class PrometheusError(GpupoolError):
    """The metrics server could not be read: one sentence naming it and what to do."""


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


@dataclass(frozen=True)
class Auth:
    """How to authenticate: a bearer token, basic auth, or nothing; and a CA file for TLS."""

    token: str | None = None
    basic: tuple[str, str] | None = field(default=None, repr=False)
    ca_file: Path | None = None

    def header(self) -> str | None:
        """Return the ``Authorization`` header's value, or None."""
        if self.token is not None:
            return f"Bearer {self.token}"
        if self.basic is not None:
            raw = f"{self.basic[0]}:{self.basic[1]}".encode()
            return "Basic " + base64.b64encode(raw).decode("ascii")
        return None


def _secret(path: Path, what: str) -> str:
    try:
        with path.open("rb") as fh:
            data = fh.read(_SECRET_FILE_LIMIT + 1)
    except OSError as err:
        raise PrometheusError(f"cannot read the {what} file {path}: {err.strerror or err}") from err
    if len(data) > _SECRET_FILE_LIMIT:
        raise PrometheusError(f"the {what} file {path} is larger than {_SECRET_FILE_LIMIT} bytes")
    try:
        text = data.decode("utf-8").strip()
    except UnicodeDecodeError as err:
        raise PrometheusError(f"the {what} file {path} is not UTF-8 text") from err
    if not text:
        raise PrometheusError(f"the {what} file {path} is empty")
    return text


def auth_from(
    environ: Mapping[str, str],
    *,
    token_file: Path | None = None,
    basic_auth_file: Path | None = None,
    ca_file: Path | None = None,
) -> Auth:
    """Return the credentials the environment and the named files give (files win).

    Raises:
        PrometheusError: a file cannot be read, or both a token and basic auth are given.

    """
    token = _secret(token_file, "token") if token_file else environ.get(TOKEN_ENV) or None
    basic: tuple[str, str] | None = None
    if basic_auth_file is not None:
        user, sep, password = _secret(basic_auth_file, "basic-auth").partition(":")
        if not sep or not user:
            raise PrometheusError(
                f"the basic-auth file {basic_auth_file} must hold one line 'user:password'"
            )
        basic = (user, password)
    elif environ.get(USER_ENV):
        basic = (environ[USER_ENV], environ.get(PASSWORD_ENV, ""))
    if token is not None and basic is not None:
        raise PrometheusError(
            "both a bearer token and basic auth are set for Prometheus; give one of them"
        )
    if ca_file is not None and not ca_file.is_file():
        raise PrometheusError(f"the CA file {ca_file} is not a readable file")
    return Auth(token=token, basic=basic, ca_file=ca_file)


def _float(text: object) -> float:
    # The API sends values as strings, "NaN", "+Inf" and "-Inf" included.
    try:
        return float(str(text))
    except ValueError:
        return math.nan


class Prometheus:
    """A Prometheus-compatible query API at ``url`` (``http(s)://host:port[/prefix]``)."""

    def __init__(self, url: str, auth: Auth | None = None, timeout: float = 60.0) -> None:
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise PrometheusError(
                f"--prometheus {url!r} is not an http:// or https:// URL of a Prometheus server"
            )
        self.url = url.rstrip("/")
        self.auth = auth or Auth()
        self.timeout = timeout
        self.queries = 0  # how many requests were sent: the report and the bench count them
        context: ssl.SSLContext | None = None
        if parsed.scheme == "https":
            context = ssl.create_default_context(
                cafile=str(self.auth.ca_file) if self.auth.ca_file else None
            )
        self._context = context

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
            with urllib.request.urlopen(
                request, timeout=self.timeout, context=self._context
            ) as response:
                raw = response.read(MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as err:
            raw = err.read(MAX_RESPONSE_BYTES + 1) if err.fp is not None else b""
            if err.code in (401, 403):
                raise PrometheusError(
                    f"{self.url} refused gpupool's credentials (HTTP {err.code}): set "
                    f"{TOKEN_ENV} or {USER_ENV}/{PASSWORD_ENV}, or pass --bearer-token-file or "
                    "--basic-auth-file"
                ) from None
            message = _api_error(raw)
            if message is None:
                raise PrometheusError(
                    f"{self.url} answered HTTP {err.code} to {path}, not the Prometheus API"
                ) from None
            raise PrometheusError(f"{self.url} refused a query: {message}") from None
        except TimeoutError:
            raise PrometheusError(
                f"{self.url} did not answer within {self.timeout:g} s; try a shorter --since "
                "or a closer server"
            ) from None
        except (urllib.error.URLError, OSError) as err:
            reason = getattr(err, "reason", err)
            raise PrometheusError(f"cannot reach Prometheus at {self.url}: {reason}") from None
        if len(raw) > MAX_RESPONSE_BYTES:
            raise PrometheusError(
                f"{self.url} answered more than {MAX_RESPONSE_BYTES // 2**20} MiB to one query"
            )
        try:
            document = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            document = None
        if not isinstance(document, dict) or document.get("status") not in ("success", "error"):
            raise PrometheusError(
                f"{self.url} did not answer with the Prometheus API's JSON (is it a Prometheus "
                "query endpoint, and not a proxy's login page?)"
            )
        if document["status"] == "error":
            raise PrometheusError(f"{self.url} refused a query: {document.get('error', '?')}")
        return document.get("data")

    def query(self, expr: str, at: float) -> list[Sample]:
        """Evaluate ``expr`` at unix time ``at``; the answer must be a vector."""
        data = self._get("/api/v1/query", {"query": expr, "time": f"{at:.3f}"})
        result = _result(data, "vector", self.url)
        samples: list[Sample] = []
        for item in result:
            labels, value = _labels(item, self.url), item.get("value")
            if not isinstance(value, list) or len(value) != 2:
                raise PrometheusError(f"{self.url} answered a vector sample without a value")
            samples.append(Sample(labels, _float(value[1])))
        return samples

    def query_range(self, expr: str, start: float, end: float, step: float) -> list[Series]:
        """Evaluate ``expr`` from ``start`` to ``end`` every ``step`` seconds.

        A window of more points a series than the server accepts is split into consecutive
        ranges whose series are joined again by their labels.
        """
        if step <= 0 or end < start:
            raise ValueError("a range query needs step > 0 and end >= start")
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
                values = item.get("values")
                if not isinstance(values, list):
                    raise PrometheusError(f"{self.url} answered a range series without values")
                points = series.setdefault(key, [])
                for pair in values:
                    if isinstance(pair, list) and len(pair) == 2:
                        points.append((float(pair[0]), _float(pair[1])))
            lo = hi + step
        return [Series(labels_of[key], tuple(points)) for key, points in sorted(series.items())]


def _api_error(raw: bytes) -> str | None:
    try:
        document = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None
    if isinstance(document, dict) and document.get("status") == "error":
        return str(document.get("error", "?"))
    return None


def _result(data: object, kind: str, url: str) -> list[dict[str, object]]:
    if not isinstance(data, dict) or data.get("resultType") != kind:
        got = data.get("resultType") if isinstance(data, dict) else type(data).__name__
        raise PrometheusError(f"{url} answered a {got} where a {kind} was asked for")
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
