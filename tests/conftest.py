"""Fixtures every test module can use.

- ``example_stack``: a validated stack from ``stacks/examples`` or ``tests/fixtures/valid``
  (``tests/stacks.py`` has the plain function, ``load_stack``, for module-level use);
- ``_isolated_home`` (autouse): no test reads or writes the real home directory.

Repository paths are constants in ``tests/paths.py``, not fixtures, because parametrize lists
need them at import time.
"""

from __future__ import annotations

import site

import pytest

from gpupool.model import Stack
from tests.stacks import load_stack

# The real user base, read before any test moves HOME: child Pythons keep finding packages
# installed with ``pip install --user``.
_USER_BASE = site.getuserbase()


@pytest.fixture
def example_stack(request: pytest.FixtureRequest) -> Stack:
    """The validated stack of the parameter: a name (see ``tests.stacks.stack_file``) or a path.

    Parametrize it indirectly; unparametrized it is ``aws-inference-l4``::

        @pytest.mark.parametrize("example_stack", ["onprem-hami"], indirect=True)
        def test_x(example_stack: Stack) -> None: ...
    """
    return load_stack(getattr(request, "param", "aws-inference-l4"))


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Give every test an empty home: HOME, PULUMI_HOME and the XDG directories, no KUBECONFIG.

    Nothing a test runs (gpupool, the stand-in or a real Pulumi CLI, git, child processes) can
    then read the developer's ``~/.pulumi``, ``~/.kube/config`` or ``~/.gitconfig``, or leave
    files there. A test that needs one of these sets it itself. The directory is not inside
    ``tmp_path``, so tests that list ``tmp_path`` see only what they made.
    """
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PULUMI_HOME", str(home / ".pulumi"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.setenv("PYTHONUSERBASE", _USER_BASE)
    monkeypatch.delenv("KUBECONFIG", raising=False)
