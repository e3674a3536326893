"""``gpupool validate``, and reading the one stack file every other command starts from."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from gpupool.spec.validate import ValidateResult, validate_file


def validate(files: Sequence[str]) -> list[ValidateResult]:
    """Validate each stack file, in the order given (diagnostics name the file as given)."""
    return [validate_file(Path(f), f) for f in files]


def load_stack(file: str) -> ValidateResult:
    """Validate one stack file; its ``stack`` is the model when valid, None otherwise."""
    return validate_file(Path(file), file)
