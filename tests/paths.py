"""Where the tests find the repository's files (a helper module, not collected as tests).

Every test module takes these paths from here instead of climbing from its own ``__file__``, so
a test file can live at any depth under ``tests/``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent  # the repository
PACKAGE = ROOT / "gpupool"  # the package's source
EXAMPLES = ROOT / "stacks" / "examples"  # the example stacks the README shows
TEMPLATES = ROOT / "templates"
FIXTURES = TESTS / "fixtures"  # stack files (valid/, invalid/), plan pairs (plan/), nodes/
GOLDEN = TESTS / "golden"  # expected outputs; GPUPOOL_UPDATE_GOLDEN=1 rewrites them
# The go-dcgm field list the DCGM tests read, until it moves out too (see its SOURCES.md); the
# facts the other tests take from upstream are in tests/upstream_facts.
# Unchanged upstream files kept beside the repository, never in it (its SOURCES.md names each
# file's repository and revision). CI has the folder; a user's clone may not.
SHARED_UPSTREAM = ROOT.parent / "shared" / "reference" / "upstream"
FAKE_PULUMI = TESTS / "fake_pulumi"  # the stand-in pulumi CLI and its scenarios


def shared_upstream(relative: str) -> Path:
    """The upstream file ``relative`` in ``../shared/reference/upstream/``, or skip the test.

    Conformance tests check gpupool against an upstream artefact the repository does not hold;
    without the folder (a user's clone) they skip, naming the file they would have read.
    """
    path = SHARED_UPSTREAM / relative
    if not path.exists():
        pytest.skip(f"upstream file ../shared/reference/upstream/{relative} is not here")
    return path
