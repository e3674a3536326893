"""Where the tests find the repository's files (a helper module, not collected as tests).

Every test module takes these paths from here instead of climbing from its own ``__file__``, so
a test file can live at any depth under ``tests/``.
"""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent  # the repository
PACKAGE = ROOT / "gpupool"  # the package's source
EXAMPLES = ROOT / "stacks" / "examples"  # the example stacks the README shows
TEMPLATES = ROOT / "templates"
FIXTURES = TESTS / "fixtures"  # stack files (valid/, invalid/), plan pairs (plan/), nodes/
GOLDEN = TESTS / "golden"  # expected outputs; GPUPOOL_UPDATE_GOLDEN=1 rewrites them
UPSTREAM = TESTS / "upstream"  # verbatim upstream files (see its SOURCES.md)
FAKE_PULUMI = TESTS / "fake_pulumi"  # the stand-in pulumi CLI and its scenarios
