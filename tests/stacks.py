"""Loading the stacks tests work on (a helper module, not collected as tests).

``load_stack`` is the one way a test gets a validated :class:`gpupool.model.Stack` from a file it
expects to be valid (``load_stack_text`` from YAML text); ``tests/conftest.py`` wraps it in the
``example_stack`` fixture.
"""

from __future__ import annotations

from pathlib import Path

from gpupool.model import Stack
from gpupool.spec.validate import validate_file, validate_text
from tests.paths import EXAMPLES, FIXTURES


def stack_file(name: str | Path) -> Path:
    """Return the file of a stack named by path, or by name in the examples or valid fixtures.

    A bare name (``"aws-inference-l4"``, with or without ``.yaml``) is looked up in
    ``stacks/examples`` and ``tests/fixtures/valid``; it must be in exactly one of them.
    """
    if isinstance(name, Path) or "/" in name:
        return Path(name)
    file = name if name.endswith(".yaml") else f"{name}.yaml"
    found = [d / file for d in (EXAMPLES, FIXTURES / "valid") if (d / file).is_file()]
    assert len(found) == 1, f"{name!r}: found {[str(p) for p in found]}"
    return found[0]


def load_stack(name: str | Path) -> Stack:
    """Validate a stack file that must be valid and return its stack (see ``stack_file``)."""
    result = validate_file(stack_file(name))
    assert result.stack is not None, [d.summary for d in result.diagnostics]
    return result.stack


def load_stack_text(text: str, filename: str = "stack.yaml") -> Stack:
    """Validate stack YAML that must be valid and return its stack."""
    result = validate_text(text, filename)
    assert result.stack is not None, [d.summary for d in result.diagnostics]
    return result.stack


def monitoring_stack(monitoring: str) -> Stack:
    """An AWS stack of one L4 pool with the given ``cluster.monitoring`` (a YAML flow map)."""
    return load_stack_text(
        "apiVersion: gpupool.io/v1\nkind: GpuPoolStack\nmetadata: {name: mon}\n"
        "provider: {cloud: aws, region: us-east-1, cluster: ml, settings: {subnetIds: "
        '[subnet-0a1b2c3d4e5f60718], nodeRoleArn: "arn:aws:iam::123456789012:role/gpu"}}\n'
        f"cluster: {{monitoring: {monitoring}}}\n"
        "pools:\n"
        "  - {name: l4, instanceType: g6.2xlarge, workload: inference, nodes: {min: 1, max: 2}}\n"
    )
