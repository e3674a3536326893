"""Prometheus credentials and CA certificates: where they come from, how they are checked.

This module owns :class:`Auth` (a bearer token or basic auth, and CA certificates) and
``auth_from``, which reads them from the environment or from the files the command line names,
and :class:`PrometheusError`, the one error of the Prometheus way in (``advise.prometheus``, which
re-exports all three). Credentials never come from the command line, which a process list shows:

* ``GPUPOOL_PROMETHEUS_TOKEN`` or a token file: ``Authorization: Bearer <token>``; a token is one
  line of printable ASCII without spaces (RFC 6750's ``b64token`` is a subset);
* ``GPUPOOL_PROMETHEUS_USER`` and ``GPUPOOL_PROMETHEUS_PASSWORD``, or a one-line
  ``user:password`` file: basic auth (UTF-8, RFC 7617), no control characters;
* a CA file for a server whose certificate a private CA signed.

A secret or CA file is read only when it is a regular file (``gpupool.files.read_regular``: a
FIFO cannot block the read, a device is refused), bounded (64 KiB a secret, 4 MiB of
certificates), and once: the certificates are kept as read, never opened again by path. A
malformed secret (a second line, a character it cannot have) is one error that names the file
or variable and quotes nothing of it; :meth:`Auth.secrets` gives the values the caller keeps out
of every message (``gpupool.cli`` adds them to the run's scrubbed secrets).
"""

from __future__ import annotations

import base64
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gpupool.errors import GpupoolError
from gpupool.files import TooLargeError, UnsafePathError, read_regular

TOKEN_ENV = "GPUPOOL_PROMETHEUS_TOKEN"
USER_ENV = "GPUPOOL_PROMETHEUS_USER"
PASSWORD_ENV = "GPUPOOL_PROMETHEUS_PASSWORD"
_SECRET_FILE_LIMIT = 64 * 1024
_CA_FILE_LIMIT = 4 * 1024 * 1024


class PrometheusError(GpupoolError):
    """The metrics server could not be read, or its credentials: one sentence, what to do."""


@dataclass(frozen=True)
class Auth:
    """How to authenticate: a bearer token, basic auth, or nothing; and CA certificates for TLS.

    ``ca_data`` holds the CA file's certificates as read (PEM text or DER bytes): the file is
    read once, bounded, and never opened again by path.
    """

    token: str | None = field(default=None, repr=False)
    basic: tuple[str, str] | None = field(default=None, repr=False)
    ca_file: Path | None = None
    ca_data: str | bytes | None = field(default=None, repr=False)

    def header(self) -> str | None:
        """Return the ``Authorization`` header's value, or None."""
        if self.token is not None:
            return f"Bearer {self.token}"
        if self.basic is not None:
            raw = f"{self.basic[0]}:{self.basic[1]}".encode()
            return "Basic " + base64.b64encode(raw).decode("ascii")
        return None

    def secrets(self) -> tuple[str, ...]:
        """Return the values no message may show: the token, the password, the header's."""
        values = [self.token or "", self.basic[1] if self.basic else ""]
        header = self.header() or ""
        values.append(header.partition(" ")[2])  # the token, or basic auth's base64
        return tuple(v for v in values if v)


def _secret_bytes(path: Path, what: str, limit: int) -> bytes:
    try:
        return read_regular(path, limit)
    except TooLargeError:
        raise PrometheusError(f"the {what} file {path} is larger than {limit} bytes") from None
    except UnsafePathError:
        raise PrometheusError(
            f"the {what} file {path} is not a regular file (a FIFO, a device or a folder): "
            "gpupool reads it only from a regular file"
        ) from None
    except OSError as err:
        raise PrometheusError(
            f"cannot read the {what} file {path}: {err.strerror or type(err).__name__}"
        ) from None


def _secret(path: Path, what: str) -> str:
    """Return a secret file's one line; every error names the file and quotes none of it."""
    data = _secret_bytes(path, what, _SECRET_FILE_LIMIT)
    try:
        text = data.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise PrometheusError(f"the {what} file {path} is not UTF-8 text") from None
    if not text:
        raise PrometheusError(f"the {what} file {path} is empty")
    if len(text.splitlines()) > 1:
        raise PrometheusError(
            f"the {what} file {path} holds more than one line; it must hold the secret alone "
            "(nothing of it is shown)"
        )
    return text


def _check_token(token: str, where: str) -> str:
    # a token goes into an HTTP header as it is: one line of visible ASCII (RFC 6750 section
    # 2.1's b64token is a subset), so no character can end the header or fail to encode
    if not all("!" <= c <= "~" for c in token):
        raise PrometheusError(
            f"{where} holds a character a bearer token cannot have (a token is one line of "
            "printable ASCII without spaces; nothing of it is shown)"
        )
    return token


def _check_basic(user: str, password: str, where: str) -> tuple[str, str]:
    # basic auth is base64 of UTF-8 (RFC 7617 section 2.1), so any character but a control
    # character, or one that UTF-8 cannot encode (an undecodable byte of the environment), goes
    for part in (user, password):
        try:
            part.encode("utf-8")
        except UnicodeEncodeError:
            ok = False
        else:
            ok = all(c >= " " and c != "\x7f" for c in part)
        if not ok:
            raise PrometheusError(
                f"{where} holds a character basic auth cannot send (a control character or "
                "one that is not UTF-8; nothing of it is shown)"
            )
    return user, password


def _ca(path: Path) -> str | bytes:
    """Return the CA file's certificates (PEM text, else DER bytes), checked by ssl."""
    data = _secret_bytes(path, "CA", _CA_FILE_LIMIT)
    if not data.strip():
        raise PrometheusError(f"the CA file {path} is empty")
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        text = ""
    cadata: str | bytes = text if "-----BEGIN" in text else data
    try:
        ssl.create_default_context(cadata=cadata)
    except (ssl.SSLError, ValueError) as err:
        reason = getattr(err, "reason", None) or "no certificate in it"
        raise PrometheusError(
            f"the CA file {path} holds no certificate TLS can use ({reason})"
        ) from None
    return cadata


def auth_from(
    environ: Mapping[str, str],
    *,
    token_file: Path | None = None,
    basic_auth_file: Path | None = None,
    ca_file: Path | None = None,
) -> Auth:
    """Return the credentials the environment and the named files give (files win).

    Raises:
        PrometheusError: a file cannot be read or is malformed, or both a token and basic auth
            are given. No message holds a secret.

    """
    token: str | None = None
    if token_file is not None:
        token = _check_token(_secret(token_file, "token"), f"the token file {token_file}")
    elif environ.get(TOKEN_ENV):
        token = _check_token(environ[TOKEN_ENV].strip(), TOKEN_ENV)
    basic: tuple[str, str] | None = None
    if basic_auth_file is not None:
        user, sep, password = _secret(basic_auth_file, "basic-auth").partition(":")
        if not sep or not user:
            raise PrometheusError(
                f"the basic-auth file {basic_auth_file} must hold one line 'user:password'"
            )
        basic = _check_basic(user, password, f"the basic-auth file {basic_auth_file}")
    elif environ.get(USER_ENV):
        basic = _check_basic(environ[USER_ENV], environ.get(PASSWORD_ENV, ""),
                             f"{USER_ENV} or {PASSWORD_ENV}")
    if token is not None and basic is not None:
        raise PrometheusError(
            "both a bearer token and basic auth are set for Prometheus; give one of them"
        )
    ca_data = _ca(ca_file) if ca_file is not None else None
    return Auth(token=token, basic=basic, ca_file=ca_file, ca_data=ca_data)
