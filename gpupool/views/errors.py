"""The one shape of an error in JSON, for every command run with ``--format json``.

With ``--format json`` stdout holds exactly one JSON document whatever happens: the command's
own document when it ran, or this one when it could not (docs/commands.md, error --format json).
``kind`` names what went wrong in words a script can branch on; ``message`` is the one line the
text output prints after ``error:``; ``diagnostics`` are the stack file's (an invalid stack or
base) and ``differences`` the lines of ``up --expect`` (a preview that is not the reviewed plan),
empty otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from gpupool.formats import FORMAT_VERSION


def error_document(
    kind: str,
    message: str,
    exit_code: int,
    diagnostics: Sequence[dict[str, Any]] = (),
    differences: Sequence[str] = (),
) -> str:
    """Return the JSON error document (one line per key, indented like every document)."""
    doc = {
        "format_version": FORMAT_VERSION,
        "error": {
            "kind": kind,
            "message": message,
            "exit_code": exit_code,
            "diagnostics": list(diagnostics),
            "differences": list(differences),
        },
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
