"""Output of ``gpupool validate``, and the diagnostics every command that reads a stack prints.

``render`` writes validation results as text for people (one line per file on stdout, the
diagnostics on stderr; acknowledged warnings only counted) or JSON for machines, which lists the
acknowledged warnings with their reasons (docs/commands.md); ``stack_diagnostics`` is what
``plan``, ``render``, ``preview``, ``up``, ``destroy`` and ``drift`` write on stderr about the stack
file they read.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

from gpupool.escape import one_line
from gpupool.formats import FORMAT_VERSION
from gpupool.spec import diagnostics
from gpupool.spec.validate import ValidateResult
from gpupool.views import Output


def render(results: Sequence[ValidateResult], fmt: str) -> Output:
    """Render validation results of one or more files."""
    all_diags = diagnostics.sort(d for r in results for d in r.diagnostics)
    if fmt == "json":
        doc = {
            "format_version": FORMAT_VERSION,
            "valid": all(r.valid for r in results),
            "diagnostics": [d.to_json() for d in all_diags],
            "acknowledged": [a.to_json() for r in results for a in r.acknowledged],
        }
        return Output(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", "")
    diag_text = "".join(diagnostics.format_text(d) + "\n" for d in all_diags)
    lines = []
    for r in results:
        errors = sum(1 for d in r.diagnostics if d.is_error)
        advice = sum(1 for d in r.diagnostics if d.severity is diagnostics.Severity.INFO)
        acked = len(r.acknowledged)
        counts = [f"{n} {word}{'s' * (n != 1)}" for n, word in (
            (len(r.diagnostics) - errors - advice, "warning"), (advice, "advice item")) if n]
        counts += [f"{acked} warning{'s' * (acked != 1)} acknowledged"] if acked else []
        if r.valid:
            lines.append(f"{one_line(r.filename)}: valid"
                         + (f" ({', '.join(counts)})" if counts else ""))
        else:
            lines.append(f"{one_line(r.filename)}: invalid: {errors} error{'s' * (errors != 1)}"
                         + "".join(f", {c}" for c in counts))
    return Output("\n".join(lines) + "\n", diag_text)


def stack_diagnostics(result: ValidateResult) -> str:
    """Return what a command that reads one stack file prints on stderr about it.

    Its errors and warnings (advice is ``validate``'s and the plan's to show), and the one-line
    verdict when the file is invalid.
    """
    kept = tuple(d for d in result.diagnostics if d.severity is not diagnostics.Severity.INFO)
    out = render([dataclasses.replace(result, diagnostics=kept)], "text")
    return out.notes + ("" if result.stack is not None else out.result)
