"""Operational errors: things that went wrong while *doing* something.

Problems in a stack file are never exceptions; they are ``Diagnostic`` values (see
``gpupool.spec.diagnostics``). Exceptions are for operations: a file that cannot be read, an engine
that failed, a stack that is locked. ``gpupool.cli`` turns each into one line and an exit code.

    GpupoolError                 base; exit code 1
    ├── InputError               a file or directory argument that cannot be used
    │   └── InvalidBaseError          ``plan --base`` names nothing plannable (usecases.base)
    ├── PlanMismatchError        ``up --expect``: the preview is not the reviewed plan
    │                            (usecases.expect)
    ├── StateError               the applied-graph record cannot be read or written
    ├── RenderError              the stack cannot be written as a program or configuration
    ├── ClusterUnavailableError  the Kubernetes API cannot be reached or read (cluster)
    ├── NodeUnavailableError     NVML cannot be read on this node (nodes.nvml)
    ├── RequiredSourceError      a drift source ``--require`` names could not be checked
    │                            (drift.run)
    └── EngineError              the Pulumi engine failed; carries the useful tail of its output
        ├── EngineNotInstalledError   no (or too old a) ``pulumi`` CLI
        ├── StackLockedError          another update holds the stack's lock
        ├── CredentialsError          cloud or passphrase credentials missing
        ├── ProgramError              the rendered program raised
        └── UpdateFailedError         an update failed part way (engine.results)
            └── EngineInterruptedError    a signal cancelled it; exit code 130 (engine.results)

The classes without a module named here are defined in this module; the others live with the
code that raises them.
"""

from __future__ import annotations

from typing import ClassVar


class GpupoolError(Exception):
    """Base for operational failures. The message is one sentence a user can act on."""

    exit_code: ClassVar[int] = 1


class InputError(GpupoolError):
    """A path given on the command line is missing, unreadable or the wrong kind of file."""


class StateError(GpupoolError):
    """The record of the last applied stack cannot be read or written."""


class EngineError(GpupoolError):
    """The Pulumi engine failed.

    ``str(err)`` is one sentence; ``detail`` holds the useful tail of the engine's output for
    ``--debug`` and logs.
    """

    def __init__(self, message: str = "", *args: object, detail: str = "") -> None:
        super().__init__(message, *args)
        self.detail = detail


class EngineNotInstalledError(EngineError):
    """The Pulumi CLI is missing or older than the Automation API needs."""


class StackLockedError(EngineError):
    """Another update holds the stack's lock."""


class CredentialsError(EngineError):
    """Cloud credentials or the state passphrase are missing."""


class ProgramError(EngineError):
    """The rendered Pulumi program raised an exception."""


class RenderError(GpupoolError):
    """The stack cannot be written as a program or as in-cluster configuration.

    A path would escape the output directory, a value has no literal form, or the in-cluster
    configuration would break an invariant validation should have guaranteed (then the message
    says so: reaching it means a check is missing).
    """
