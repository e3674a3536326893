"""advise's credentials never leave for another origin, never show, and never block on a FIFO.

Each test serves a hostile answer from a stand-in on 127.0.0.1 (``tests/advise/standin.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpupool.advise import prometheus as prom
from gpupool.cli import run
from tests.advise.scenario import STACK
from tests.advise.standin import Seen, fixed, standing_in

NOW = float(int(time.time()) // 3600 * 3600)
TOKEN = "tok-5ecret-value-0123456789"
EMPTY_VECTOR = b'{"status":"success","data":{"resultType":"vector","result":[]}}'


def _stack(tmp_path: Path) -> Path:
    stack = tmp_path / "stack.yaml"
    stack.write_text(STACK)
    return stack


def _token_file(tmp_path: Path, text: str | bytes = TOKEN + "\n") -> Path:
    path = tmp_path / "token"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _advise(stack: Path, url: str, *extra: str) -> list[str]:
    return ["advise", str(stack), "--prometheus", url, "--since", "2d", *extra]


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_origin_is_an_error_and_the_token_stays_here(
    code: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # urllib's default opener follows 301/302/303 as a GET without the query, and 307/308 with
    # the Authorization header, to whatever origin Location names (Lib/urllib/request.py,
    # HTTPRedirectHandler.redirect_request)
    with standing_in(fixed(200, EMPTY_VECTOR)) as elsewhere:
        target = elsewhere.url + "/api/v1/query"
        with standing_in(fixed(code, b"", {"Location": target})) as server:
            status = run(_advise(_stack(tmp_path), server.url,
                                 "--bearer-token-file", str(_token_file(tmp_path))))
    err = capsys.readouterr().err
    assert status == 1
    assert elsewhere.seen == []  # nothing, and no credential, went to the other origin
    assert f"answered HTTP {code}, a redirect to {target}" in err
    assert "No recommendation" not in err and TOKEN not in err


def test_a_redirect_to_the_same_origin_is_not_followed_either(tmp_path: Path) -> None:
    # a POSTed query re-sent as an empty GET would find no series: every figure "absent"
    def answer(seen: Seen) -> tuple[int, dict[str, str], bytes]:
        if seen.path == "/api/v1/query":
            return 302, {"Location": "/prefix/api/v1/query"}, b""
        return 200, {}, EMPTY_VECTOR

    with standing_in(answer) as server:
        with pytest.raises(prom.PrometheusError, match=r"HTTP 302, a redirect to http://127"):
            prom.Prometheus(server.url).query("up", NOW)
        assert [s.path for s in server.seen] == ["/api/v1/query"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (TOKEN + "\nsecond-line-of-it\n", "holds more than one line"),
        (TOKEN + "\u00e9\u4e2d", "holds a character a bearer token cannot have"),
        (TOKEN + " with-space", "holds a character a bearer token cannot have"),
        (b"\xff" + TOKEN.encode(), "is not UTF-8 text"),
    ],
)
def test_a_malformed_token_file_is_one_error_that_quotes_none_of_it(
    content: str | bytes, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: http.client refused the header value (ValueError, or UnicodeEncodeError outside
    # Latin-1) and the internal error's message held the token
    token_file = _token_file(tmp_path, content)
    with standing_in(fixed(200, EMPTY_VECTOR)) as server:
        status = run(_advise(_stack(tmp_path), server.url, "--bearer-token-file",
                             str(token_file), "--format", "json"))
        assert server.seen == []
    out = capsys.readouterr()
    assert status == 1
    assert f"the token file {token_file} {message}" in out.err
    assert "internal error" not in out.err and "second-line" not in out.out + out.err
    assert TOKEN not in out.out + out.err and TOKEN[:8] not in out.out + out.err
    assert json.loads(out.out)["error"]["kind"] == "prometheus"


def test_a_token_read_from_a_file_is_scrubbed_from_the_server_s_echo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    echo = json.dumps({"status": "error", "errorType": "bad_data",
                       "error": f"token {TOKEN} is not allowed"}).encode()
    with standing_in(fixed(400, echo)) as server:
        status = run(_advise(_stack(tmp_path), server.url,
                             "--bearer-token-file", str(_token_file(tmp_path))))
        assert server.seen[0].headers["Authorization"] == f"Bearer {TOKEN}"
    err = capsys.readouterr().err
    assert status == 1
    assert "refused a query: token *** is not allowed" in err
    assert TOKEN not in err


def test_a_password_from_a_file_is_scrubbed_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "basic"
    secret.write_text("alice:pw-0f-alice-9876\n")
    echo = b'{"status":"error","error":"alice:pw-0f-alice-9876 YWxpY2U6cHctMGYtYWxpY2UtOTg3Ng=="}'
    with standing_in(fixed(422, echo)) as server:
        status = run(_advise(_stack(tmp_path), server.url, "--basic-auth-file", str(secret)))
    err = capsys.readouterr().err
    assert status == 1
    assert "pw-0f-alice" not in err and "YWxpY2U6cHctMGYtYWxpY2UtOTg3Ng" not in err


@pytest.mark.parametrize("url", ["http://alice:hunter2-pw@127.0.0.1:9",
                                 "http://alice:hunter2-pw@127.0.0.1:port",
                                 "ftp://alice:hunter2-pw@127.0.0.1"])
def test_a_url_with_a_password_never_repeats_it(
    url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = run(_advise(_stack(tmp_path), url, "--format", "json"))
    out = capsys.readouterr()
    assert status == 1
    assert "hunter2" not in out.out + out.err
    assert "internal error" not in out.err


def test_credentials_in_the_url_are_refused_with_what_to_do() -> None:
    with pytest.raises(prom.PrometheusError, match=r"http://\*\*\*@127\.0\.0\.1:9 holds "
                       r"credentials, .* --basic-auth-file"):
        prom.Prometheus("http://alice:hunter2-pw@127.0.0.1:9")


@pytest.mark.parametrize("flag", ["--bearer-token-file", "--basic-auth-file", "--ca-file"])
def test_a_fifo_as_a_secret_or_ca_file_is_refused_not_waited_on(
    flag: str, tmp_path: Path
) -> None:
    # a child process with a deadline: before, open() of the FIFO blocked for ever
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    stack = _stack(tmp_path)
    env = {"PYTHONPATH": str(Path(__file__).resolve().parents[2]), **os.environ}
    done = subprocess.run(
        [sys.executable, "-m", "gpupool", *_advise(stack, "http://127.0.0.1:9", flag, str(fifo))],
        capture_output=True, text=True, timeout=60, env=env, check=False,
    )
    assert done.returncode == 1
    assert f"{fifo} is not a regular file" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_ca_file_is_read_once_and_must_hold_a_certificate(tmp_path: Path) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n")
    with pytest.raises(prom.PrometheusError, match=r"ca\.pem holds no certificate TLS can use"):
        prom.auth_from({}, ca_file=ca)
    with pytest.raises(prom.PrometheusError, match=r"the CA file .* is larger than 4194304"):
        ca.write_bytes(b"-" * (4 * 1024 * 1024 + 1))
        prom.auth_from({}, ca_file=ca)


def test_the_environment_s_token_is_checked_like_a_file_s() -> None:
    with pytest.raises(prom.PrometheusError) as caught:
        prom.auth_from({prom.TOKEN_ENV: "abc\r\nX-Injected: 1"})
    assert str(caught.value).startswith(f"{prom.TOKEN_ENV} holds a character")
    assert "Injected" not in str(caught.value)


def test_auth_never_shows_its_secrets_in_a_repr() -> None:
    auth = prom.Auth(token=TOKEN)
    assert TOKEN not in repr(auth)
    assert TOKEN in auth.secrets()
