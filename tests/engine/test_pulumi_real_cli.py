"""gpupool.engine.pulumi against a real Pulumi CLI, when one is installed (skipped otherwise).

The program has no cloud resources (only stack outputs), state goes to a temporary ``file://``
backend, and the passphrase is ``test``, as in Pulumi's own integration tests. The Python
language host is pointed at this interpreter with ``PULUMI_PYTHON_CMD`` so that it finds the
pulumi SDK installed here.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from gpupool.engine import pulumi as engine
from gpupool.engine.results import EngineTarget
from gpupool.errors import CredentialsError, ProgramError
from tests.paths import FAKE_PULUMI


def _real_pulumi() -> str | None:
    """Return the real `pulumi` on PATH, or None when absent or when it is our stand-in."""
    found = shutil.which("pulumi")
    if found is None:
        return None
    resolved = Path(found).resolve()
    if FAKE_PULUMI in resolved.parents:
        return None
    try:
        head = resolved.read_bytes()[:4096]
    except OSError:
        return None
    if b"fake_cli" in head or b"FAKE_PULUMI" in head:
        return None
    return found


pytestmark = [
    pytest.mark.pulumi_cli,
    pytest.mark.skipif(_real_pulumi() is None, reason="needs a real Pulumi CLI on PATH"),
]

PROGRAM = """\
import pulumi

pulumi.export("greeting", "hello")
pulumi.export("token", pulumi.Output.secret("s3cr3t-value-for-test"))
"""


@pytest.fixture
def target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> EngineTarget:
    for name in ("PULUMI_CONFIG_PASSPHRASE", "PULUMI_CONFIG_PASSPHRASE_FILE",
                 "PULUMI_BACKEND_URL", "PULUMI_ACCESS_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    program = tmp_path / "program"
    program.mkdir()
    (program / "Pulumi.yaml").write_text("name: gpupool-cli-test\nruntime: python\n")
    (program / "__main__.py").write_text(PROGRAM)
    env = {"PULUMI_CONFIG_PASSPHRASE": "test", "PULUMI_PYTHON_CMD": sys.executable,
           "PULUMI_HOME": str(tmp_path / "pulumi-home")}
    return EngineTarget(program, "dev", f"file://{tmp_path / 'state'}", env)


def _stack_files(target: EngineTarget) -> dict[str, bytes]:
    root = Path(target.backend_url[len("file://"):]) / ".pulumi" / "stacks"
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*.json"))}


def test_full_lifecycle_against_a_file_backend(target: EngineTarget) -> None:
    """Preview, up, a quiet re-preview, a read-only drift check, export and destroy all work."""
    first = engine.preview(target)
    assert first.changed
    assert first.summary.get("create") == 1

    applied = engine.up(target)
    assert applied.outputs == {"greeting": "hello", "token": "[secret]"}
    assert any(s.type == "pulumi:pulumi:Stack" and s.op == "create" for s in applied.steps)

    again = engine.preview(target)
    assert not again.changed

    before = _stack_files(target)
    drift = engine.refresh_preview(target)
    assert not drift.changed
    assert _stack_files(target) == before

    state = engine.export_state(target)
    assert state is not None
    assert "s3cr3t-value-for-test" not in str(state)

    removed = engine.destroy(target)
    assert removed.summary.get("delete") == 1


def test_program_error_is_reported_with_its_error_line(target: EngineTarget) -> None:
    """A program that raises gives ProgramError carrying the Python error line."""
    (target.work_dir / "__main__.py").write_text("raise ValueError('boom from the program')\n")
    with pytest.raises(ProgramError, match="ValueError: boom from the program"):
        engine.preview(target)


def test_missing_passphrase_is_a_credentials_error(target: EngineTarget) -> None:
    """Without PULUMI_CONFIG_PASSPHRASE the stack cannot be created: CredentialsError."""
    env = {k: v for k, v in target.env.items() if k != "PULUMI_CONFIG_PASSPHRASE"}
    bare = EngineTarget(target.work_dir, target.stack_name, target.backend_url, env)
    with pytest.raises(CredentialsError, match="PULUMI_CONFIG_PASSPHRASE"):
        engine.preview(bare)
