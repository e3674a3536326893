"""The ``pulumi`` CLI as gpupool's child process: signals forwarded, the stack lock inherited.

The Automation API runs every CLI command through ``PulumiCommand.run`` (pulumi SDK 3.272,
``pulumi/automation/_cmd.py``: ``subprocess.Popen`` with the default ``close_fds=True``, in
gpupool's own process group). Left at that, a SIGTERM, a SIGHUP or a SIGINT sent to gpupool
alone ends gpupool at once while ``pulumi up`` carries on, and the stack lock
(``gpupool.lock``) dies with gpupool: a second ``gpupool up`` starts a second engine run.

``Command`` stands in for the SDK's ``PulumiCommand`` (which still finds the CLI and checks its
version: ``Command`` takes its ``command`` and ``version``) and starts each CLI command the way
``PulumiCommand.run`` does (``--non-interactive`` first, the SDK's environment with
``PULUMI_AUTOMATION_API=true``, stdout and stderr read line by line into the SDK's callbacks, the
SDK's ``CommandResult`` and ``create_command_error``), with three differences:

- **The child inherits ``keep_fds``**, the stack lock's descriptor. An ``flock`` belongs to the
  open file description, so the lock stays held while the CLI runs, even after gpupool itself is
  killed with SIGKILL, which nothing can catch. Processes the CLI starts keep it too (Go does not
  close descriptors it inherited), so the lock is free only once the whole engine has exited.
- **The child runs in a session of its own**, stdin from ``/dev/null``: a terminal's ^C reaches
  gpupool only, and gpupool forwards it exactly once (two would make Pulumi terminate).
- **While ``forwarding()`` is active** (the whole engine operation), SIGINT, SIGTERM and SIGHUP
  are caught and forwarded to the running CLI as SIGINT. Pulumi takes the first as "cancel: let
  the steps in flight finish, start no more" and a second as "terminate now"
  (pulumi/pulumi ``pkg/backend/cancellation_scope.go``: ``signal.Notify(c.sigint,
  os.Interrupt, ...)``; SIGINT works on every CLI gpupool accepts, SIGTERM only on newer ones).
  gpupool keeps waiting for the CLI to exit, so it releases the lock only after the engine is
  gone, and once a signal was received it starts no further CLI command. ``received`` says which
  signal came first.

Not covered: a SIGKILL of the CLI itself (Pulumi's own backend lock and pending operations are
then Pulumi's to clear: ``pulumi cancel``, ``pulumi refresh``); signals while gpupool is not in
an engine operation (rendering, writing the record: those end gpupool at once, and the record is
written atomically); a caller that is not the main thread (Python delivers signals there only),
which gets no forwarding; Windows, which has neither ``flock`` nor these signals.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import FrameType
from typing import Any, TextIO

#: the signals forwarded to the engine while it runs
FORWARDED = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                  if hasattr(signal, name))  # fmt: skip
#: what the engine is sent for each of them: Pulumi's "cancel" (a second one: "terminate")
CANCEL = signal.SIGINT

OnOutput = Callable[[str], Any]


class Command:
    """The Pulumi CLI for the Automation API, run as described in the module docstring."""

    def __init__(self, found: Any, result: Callable[..., Any], error: Callable[[Any], Exception],
                 keep_fds: Sequence[int] = ()) -> None:
        """Wrap ``found``, a ``pulumi.automation.PulumiCommand`` (it found and checked the CLI).

        Args:
            found: the SDK's command (its ``command`` and ``version`` are used).
            result: the SDK's ``CommandResult`` class.
            error: the SDK's ``create_command_error``.
            keep_fds: descriptors every CLI process inherits (the stack lock's).

        """
        self.command: str = found.command
        self.version = found.version
        self._result = result
        self._error = error
        self._keep = tuple(keep_fds)
        self._running: set[subprocess.Popen[str]] = set()
        self._guard = threading.Lock()
        self.received: int | None = None

    @contextlib.contextmanager
    def forwarding(self) -> Iterator[None]:
        """Catch ``FORWARDED`` signals for the block and pass them on to the running CLI."""
        if os.name == "nt" or threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {sig: signal.signal(sig, self._forward) for sig in FORWARDED}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _forward(self, signum: int, frame: FrameType | None) -> None:
        if self.received is None:
            self.received = signum
        with self._guard:
            running = list(self._running)
        for process in running:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(CANCEL)

    def run(self, args: list[str], cwd: str, additional_env: Mapping[str, str],
            on_output: OnOutput | None = None, on_error: OnOutput | None = None) -> Any:
        """Run one CLI command, as ``PulumiCommand.run`` does (see the module docstring).

        Raises:
            CommandError: the command failed, or a signal came before it could start.

        """
        end = args.index("--") if "--" in args else len(args)
        if "--non-interactive" not in args[:end]:
            args.insert(0, "--non-interactive")
        if self.received is not None:  # cancelled: start nothing more
            name = signal.Signals(self.received).name
            raise self._error(self._result(stdout="", code=-self.received,
                                           stderr=f"error: gpupool received {name}; "
                                           f"'pulumi {' '.join(args)}' was not started"))
        env = {**os.environ, **additional_env, "PULUMI_AUTOMATION_API": "true"}
        out: list[str] = []
        err: list[str] = []
        with subprocess.Popen(
            [self.command, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, cwd=cwd, env=env, encoding="utf-8", pass_fds=self._keep,
            start_new_session=True,
        ) as process:  # fmt: skip
            with self._guard:
                self._running.add(process)
            if self.received is not None:  # a signal came while it was starting
                process.send_signal(CANCEL)
            try:
                assert process.stdout is not None and process.stderr is not None
                readers = [threading.Thread(target=_consume, args=(process.stdout, on_output, out)),
                           threading.Thread(target=_consume, args=(process.stderr, on_error, err))]
                for reader in readers:
                    reader.start()
                for reader in readers:
                    reader.join()
                process.wait()
            finally:
                with self._guard:
                    self._running.discard(process)
        result = self._result(stdout="\n".join(out), stderr="\n".join(err), code=process.returncode)
        if process.returncode != 0:
            raise self._error(result)
        return result


def _consume(stream: TextIO, callback: OnOutput | None, chunks: list[str]) -> None:
    """Read ``stream`` line by line into ``chunks`` (and ``callback``), as the SDK does."""
    for line in iter(stream.readline, ""):
        stripped = line.rstrip()
        if callback:
            callback(stripped)
        chunks.append(stripped)
    stream.close()
