"""The command line's exit codes and the failures it maps to them (docs/commands.md, Exit codes).

Errors of the domain are ``gpupool.errors``' (each knows its exit code); these are the command
line's own: bad flags, a prompt answered no, and a stack or workload whose diagnostics are
printed already. ``gpupool.cli.run`` turns each into its line and its code.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_CHANGES = 2
EXIT_USAGE = 64
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """Bad flags or arguments (exit 64)."""


class CancelledError(Exception):
    """The user did not confirm (``Apply cancelled.``)."""


class InvalidStackError(Exception):
    """The stack file has errors, printed on stderr; ``diagnostics`` holds them as JSON."""

    def __init__(self, message: str, diagnostics: list[dict[str, object]]) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics


class InvalidWorkloadError(Exception):
    """The workload file has errors, printed on stderr; ``diagnostics`` holds them as JSON."""

    def __init__(self, message: str, diagnostics: list[dict[str, object]]) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics
