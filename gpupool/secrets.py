"""Secrets: which values must never leave gpupool, and the one scrubber that removes them.

This module owns the list of secret values (``secret_values``) and ``scrub``. Every line gpupool
prints goes through ``gpupool.cli``, which scrubs it here, whatever the command and format; the
engine scrubs its error details and event messages here too, before they are kept.

Secret values are:

- the values of environment variables whose names look secret (``*PASSPHRASE*``, ``*SECRET*``,
  ``*TOKEN*``, ``*PASSWORD*``, ``*CREDENTIAL*``, ``*PRIVATE*``, ``*ACCESS_KEY*``, ``*_KEY``);
- the content of the file ``PULUMI_CONFIG_PASSPHRASE_FILE`` names (whole, and without the
  surrounding white space);
- in the kubeconfig files ``KUBECONFIG`` names (default ``~/.kube/config``), every user field
  whose key looks secret (``token``, ``password``, ``client-secret``, ``refresh-token``,
  ``client-key-data`` ...) and every value of a user's ``exec.env``.

``gpupool advise`` adds the credentials it reads from its token and basic-auth files (and the
``GPUPOOL_PROMETHEUS_*`` variables) to the run's list once read (``gpupool.cli``, from
``advise.promauth.Auth.secrets``), so they are scrubbed like the ones above.

``scrub`` replaces a value of 8 characters or more wherever it appears, one of 4 to 7 characters
only where it stands alone (not inside a longer run of letters, digits, ``-``, ``_`` or ``.``,
and never a number or a JSON literal, which would erase counts and break JSON), and one of
fewer than 4 characters never (docs/security.md, "Secrets").

Reading is bounded: a file is read only when it is a regular file of at most 4 MiB, and a
kubeconfig is walked once per object (PyYAML shares an aliased node, so an alias-built file of a
few hundred bytes that names 10**9 paths holds a few dozen objects).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from gpupool.files import read_regular

__all__ = ["MIN_SECRET", "MIN_WORD_SECRET", "scrub", "secret_values"]

#: A value this long is scrubbed wherever it appears.
MIN_SECRET = 8
#: A shorter value, down to this length, is scrubbed only where it stands alone.
MIN_WORD_SECRET = 4
_MASK = "***"
_SECRET_KEY = re.compile(r"PASSPHRASE|SECRET|TOKEN|PASSWORD|CREDENTIAL|PRIVATE|ACCESS_KEY|_KEY$")
# kubeconfig user fields that hold credentials (token, password, client-key-data, id-token,
# refresh-token, client-secret, access-token ...)
_KUBE_SECRET_KEY = re.compile(r"token|password|secret|key-data", re.IGNORECASE)
_MAX_FILE = 4 * 1024 * 1024
_MAX_OBJECTS = 100_000
_WORD = "A-Za-z0-9_.\\-"
_NEVER_SHORT = re.compile(r"[0-9]+|true|false|null", re.IGNORECASE)
_PASSPHRASE_FILE = "PULUMI_CONFIG_PASSPHRASE_FILE"


def scrub(text: str, secrets: Iterable[str]) -> str:
    """Replace every secret value found in ``text`` with ``***`` (rules in the module doc)."""
    values = sorted({s for s in secrets if isinstance(s, str)}, key=len, reverse=True)
    for secret in values:
        if len(secret) >= MIN_SECRET:
            text = text.replace(secret, _MASK)
            quoted = json.dumps(secret, ensure_ascii=False)[1:-1]  # as gpupool writes JSON
            if quoted != secret:
                text = text.replace(quoted, _MASK)
        elif len(secret) >= MIN_WORD_SECRET and not _NEVER_SHORT.fullmatch(secret):
            alone = rf"(?<![{_WORD}]){re.escape(secret)}(?![{_WORD}])"
            text = re.sub(alone, _MASK, text)
    return text


def secret_values(env: Mapping[str, str] | None = None) -> list[str]:
    """Return the values to keep out of every message (the module doc lists them).

    Args:
        env: variables set on top of ``os.environ`` (an engine target's environment).

    """
    merged = {**os.environ, **(env or {})}
    values = [value for key, value in merged.items() if value and _SECRET_KEY.search(key.upper())]
    phrase_file = merged.get(_PASSPHRASE_FILE)
    if phrase_file:
        text = _read(Path(phrase_file).expanduser())
        if text:
            values += [text, text.strip()]
    files = merged.get("KUBECONFIG") or str(Path("~/.kube/config").expanduser())
    for name in files.split(os.pathsep):
        if name:
            values += _kubeconfig_secrets(Path(name))
    return [v for v in values if v]


def _read(path: Path) -> str | None:
    """Return a small regular file's text; None for anything else or on any failure."""
    try:
        data = read_regular(path, _MAX_FILE)
    except OSError:  # missing, a FIFO or device, a folder, or too large
        return None
    return data.decode("utf-8", errors="replace")


def _kubeconfig_secrets(path: Path) -> list[str]:
    """Return the credential values of one kubeconfig file (none when it cannot be read)."""
    text = _read(path)
    if text is None:
        return []
    try:
        data = yaml.safe_load(text)
    except (yaml.YAMLError, ValueError, RecursionError):
        return []
    users = data.get("users") if isinstance(data, dict) else None
    found: list[str] = []
    seen: set[int] = set()
    todo: list[tuple[Any, bool]] = [(users, False)]
    while todo and len(seen) < _MAX_OBJECTS:
        item, secret = todo.pop()
        if isinstance(item, str):
            if secret:
                found.append(item)
            continue
        if not isinstance(item, (list, dict)) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, list):
            todo.extend((x, secret) for x in item)
            continue
        for key, value in item.items():
            name = str(key)
            if name == "env" and isinstance(value, list):  # exec.env: [{name, value}]
                todo.extend((e.get("value"), True) for e in value if isinstance(e, dict))
            todo.append((value, bool(_KUBE_SECRET_KEY.search(name))))
    return found
