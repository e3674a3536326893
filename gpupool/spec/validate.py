"""The validation pipeline: file -> document -> schema -> model -> checks -> placed diagnostics.

This module owns the order of the stages and the rule that later stages run only on input the
earlier ones accepted (no model is built from schema-invalid data). It is what ``gpupool validate``
and every other command call first.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpupool import model
from gpupool.spec import checks, diagnostics, load, schema
from gpupool.spec.diagnostics import Diagnostic


@dataclass(frozen=True)
class ValidateResult:
    """What validating one file gave: its diagnostics and, when it is valid, its stack."""

    filename: str
    diagnostics: tuple[Diagnostic, ...]
    stack: model.Stack | None
    document: load.Document | None

    @property
    def valid(self) -> bool:
        """True when no diagnostic is an error."""
        return not diagnostics.has_errors(self.diagnostics)


def _place(doc: load.Document, diags: list[Diagnostic]) -> list[Diagnostic]:
    out = []
    for d in diags:
        if d.range is not None:
            out.append(d)
            continue
        # A missing key is reported on its parent; where the parent has a key of its own
        # ("sharing:"), that line is where a reader looks for it.
        anchor = "key" if d.anchor in ("key", "parent") else "value"
        out.append(d.placed(doc.locate(d.path, anchor)))
    return out


def validate_document(doc: load.Document) -> tuple[list[Diagnostic], model.Stack | None]:
    """Validate a parsed document; return its placed diagnostics and, if valid, the stack."""
    diags = schema.validate(doc.data)
    stack = None
    if not diagnostics.has_errors(diags):
        stack = model.build(doc.data, doc.filename)
        diags += checks.run(stack, doc.data)
    placed = diagnostics.sort(_place(doc, diags))
    return placed, (None if diagnostics.has_errors(placed) else stack)


def validate_text(text: str, filename: str) -> ValidateResult:
    """Validate stack YAML given as text."""
    doc, diags = load.parse(text, filename)
    if doc is None:
        return ValidateResult(filename, tuple(diagnostics.sort(diags)), None, None)
    more, stack = validate_document(doc)
    all_diags = diagnostics.sort([*diags, *more])
    if diagnostics.has_errors(all_diags):
        stack = None
    return ValidateResult(filename, tuple(all_diags), stack, doc)


def validate_file(path: Path, display_name: str | None = None) -> ValidateResult:
    """Validate a stack file.

    Raises:
        InputError: the path cannot be read as a file.

    """
    name = display_name or str(path)
    text, diags = load.read_text(path, name)
    if text is None:
        return ValidateResult(name, tuple(diags), None, None)
    return validate_text(text, name)
