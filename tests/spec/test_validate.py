"""Every invalid fixture marks its expected diagnostics inline; validation must match exactly."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpupool.spec.validate import validate_file
from tests import paths
from tests.paths import FIXTURES

MARK = re.compile(r"\b(ERROR|WARNING|INFO): ([^;]+?)\s*(?=;\s*(?:ERROR|WARNING|INFO):|$)")


def expected(path: Path) -> set[tuple[int, str, str]]:
    """Return (line, severity, summary) for every '# ERROR:', '# WARNING:', '# INFO:' marker."""
    want = set()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if "#" not in line:
            continue
        comment = line[line.index("#") + 1 :] if not line.lstrip().startswith("#") else line
        for sev, summary in MARK.findall(comment):
            want.add((n, sev.lower(), summary.strip()))
    return want


def got(path: Path) -> set[tuple[int, str, str]]:
    """Return (line, severity, summary) of every diagnostic gpupool reports for the file.

    Advice (``info``) counts only in a fixture that marks some (``# INFO: ...``): the advice
    fixtures test it, and other fixtures need not mark what a price change would move.
    """
    result = validate_file(path)
    advice = any(sev == "info" for _, sev, _ in expected(path))
    out = set()
    for d in result.diagnostics:
        if d.severity.value == "info" and not advice:
            continue
        assert d.range is not None, f"diagnostic without a position: {d}"
        assert d.range.filename == str(path)
        out.add((d.range.start.line, d.severity.value, d.summary))
    return out


INVALID = sorted((FIXTURES / "invalid").glob("*.yaml"))
VALID = sorted((FIXTURES / "valid").glob("*.yaml"))


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_fixture_reports_exactly_its_marked_errors(path: Path) -> None:
    """Each marked diagnostic appears on exactly its line, and no unmarked one appears."""
    want = expected(path)
    assert any(sev == "error" for _, sev, _ in want), "an invalid fixture must mark an error"
    assert got(path) == want


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_fixture_has_no_errors_and_only_marked_warnings(path: Path) -> None:
    """Valid fixtures validate, with exactly the warnings they mark."""
    assert got(path) == expected(path)
    assert validate_file(path).valid


EXAMPLES = sorted(paths.EXAMPLES.glob("*.yaml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_stack_is_valid(path: Path) -> None:
    """Bundled examples are what newcomers copy: they must validate."""
    result = validate_file(path)
    assert result.valid, [d.summary for d in result.diagnostics]
    assert result.stack is not None
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# yaml-language-server: $schema=")


def test_marker_parser_reads_several_markers_on_one_line(tmp_path: Path) -> None:
    """The marker syntax itself: two markers separated by ';' are both read."""
    f = tmp_path / "x.yaml"
    f.write_text("a: 1  # ERROR: One thing; WARNING: Other thing\n", encoding="utf-8")
    assert expected(f) == {(1, "error", "One thing"), (1, "warning", "Other thing")}


SCHEMA_AND_GPU = FIXTURES / "invalid" / "schema-and-gpu-errors.yaml"


def test_a_schema_error_in_one_pool_does_not_hide_the_gpu_checks_of_another() -> None:
    """Schema mistake in pool 0, MIG layout that does not fit in pool 1: both, in file order."""
    result = validate_file(SCHEMA_AND_GPU)
    assert [(d.code, d.path[:2]) for d in result.diagnostics] == [
        ("schema.unknown-key", ("pools", 0)),
        ("mig.layout-does-not-fit", ("pools", 1)),
    ]
    assert result.stack is None


def test_checks_of_valid_parts_keep_their_own_index_and_skip_what_depends_on_broken_parts(
    tmp_path: Path,
) -> None:
    """Pool 1 broken: pool 2's finding keeps its index; a tenant of the broken pool is not
    reported as naming an unknown pool; a top-level schema error still stops the checks."""
    text = SCHEMA_AND_GPU.read_text(encoding="utf-8")
    # a valid pool first, so the broken pool and the MIG pool are pools 1 and 2
    first = "pools:\n  - name: ok\n    instanceType: g6.2xlarge\n    nodes: {min: 1, max: 1}\n"
    f = tmp_path / "s.yaml"
    f.write_text(text.replace("pools:\n", first, 1), encoding="utf-8")
    result = validate_file(f)
    assert [(d.code, d.path[:2]) for d in result.diagnostics] == [
        ("schema.unknown-key", ("pools", 1)),
        ("mig.layout-does-not-fit", ("pools", 2)),
    ]
    f.write_text(text.replace("cluster: ml-prod", "cluster: 7"), encoding="utf-8")
    assert {d.code for d in validate_file(f).diagnostics} == {"schema.type", "schema.unknown-key"}


EIGHT = FIXTURES / "invalid" / "eight-mistakes-across-sections.yaml"


def test_eight_mistakes_in_five_sections_are_all_reported_in_one_round() -> None:
    """Schema errors in metadata, cluster, a pool and a tenant hide none of the four mistakes the
    checks find: the region, another pool's instance type and drain time, a tenant's pool."""
    codes = [d.code for d in validate_file(EIGHT).diagnostics]
    assert codes == [
        "schema.enum", "catalog.unknown-region", "schema.maximum", "schema.unknown-key",
        "catalog.unknown-instance-type", "spot.drain-too-long", "schema.unknown-key",
        "tenant.unknown-pool",
    ]


def test_a_rule_reading_a_broken_field_is_not_judged(tmp_path: Path) -> None:
    """A misspelt key in cluster could be meant as cluster.scheduler: the rule that fairShare
    weights need KAI is not judged on the default scheduler; the pools' other checks are."""
    text = EIGHT.read_text(encoding="utf-8")
    text = text.replace("  scheduler: default\n", "  schedulerr: kai\n")
    text = text.replace("    quotaa: {gpus: 2}", "    fairShare: {weight: 2}")
    f = tmp_path / "s.yaml"
    f.write_text(text, encoding="utf-8")
    codes = {d.code for d in validate_file(f).diagnostics}
    assert "policy.weights-need-kai" not in codes
    assert {"catalog.unknown-region", "spot.drain-too-long", "tenant.unknown-pool"} <= codes
    # with the key spelt right and the default scheduler, the same weights are an error
    f.write_text(text.replace("schedulerr: kai", "scheduler: default"), encoding="utf-8")
    assert "policy.weights-need-kai" in {d.code for d in validate_file(f).diagnostics}


def test_a_broken_environment_hides_only_the_rules_about_production(tmp_path: Path) -> None:
    """spot.all-spot-production reads metadata.environment: with the environment broken it is
    not judged; with it valid (production) the all-spot pool is warned about."""
    assert "spot.all-spot-production" not in {d.code for d in validate_file(EIGHT).diagnostics}
    f = tmp_path / "s.yaml"
    f.write_text(EIGHT.read_text(encoding="utf-8").replace("environment: prod}",
                                                           "environment: production}"),
                 encoding="utf-8")
    codes = [d.code for d in validate_file(f).diagnostics]
    assert "spot.all-spot-production" in codes
    assert "spot.drain-too-long" in codes
