"""The DCGM exporter's metrics list gpupool renders (``gpupool/sharing/dcgm.py``).

The list is gpupool's own table. It must parse the way dcgm-exporter parses it
(``tests/manifests.parse_dcgm_metrics``, after dcgm-exporter
internal/pkg/counters/counter_config.go and Go's encoding/csv), name only fields DCGM knows
(go-dcgm pkg/dcgm/const_fields.go, as ``tests/dcgm_facts`` records them), read every field
gpupool's alerts and dashboard read, and keep every field dcgm-exporter's default list exports
with the type it gives it. The conformance tests at the end hold the table, and the facts, against
dcgm-exporter's etc/dcp-metrics-included.csv where the upstream folder beside the repository has
it (``tests.paths.shared_upstream``; they skip, naming the file, where it does not).
"""

from __future__ import annotations

import pytest

from gpupool.errors import RenderError
from gpupool.sharing import alerts, dcgm
from tests import dcgm_facts
from tests.manifests import parse_dcgm_metrics, validate_dcgm_metrics
from tests.paths import GOLDEN, ROOT, shared_upstream

UPSTREAM_LIST = "dcgm/dcgm-exporter-dcp-metrics-included.csv"


def _rendered() -> str:
    return dcgm.metrics_list(alerts.read_metrics())


def _rows(text: str) -> dict[str, tuple[str, str, str]]:
    rows, errors = parse_dcgm_metrics(text)
    assert errors == []
    return {row[0]: row for row in rows}


def test_rendered_list_parses_by_the_exporters_rules() -> None:
    # dcgm-exporter counter_config.go: 3 fields (so no comma in a help text), a DCGM field name,
    # a known Prometheus type; any error and the exporter exits at start, exporting nothing.
    assert validate_dcgm_metrics(_rendered()) == []


def test_rendered_list_is_the_table_with_what_gpupool_reads_first() -> None:
    text = _rendered()
    assert text.startswith(dcgm.HEADER)
    read, kept = text.split(dcgm.READ_HEADING + "\n")[1].split("\n" + dcgm.KEPT_HEADING + "\n")
    table = dcgm.by_field()
    assert list(_rows(read)) == [m.field for m in dcgm.METRICS if m.field in alerts.read_metrics()]
    assert set(_rows(read)) == set(alerts.read_metrics())
    assert list(_rows(kept)) == [m.field for m in dcgm.METRICS if m.field not in _rows(read)]
    assert {f: (f, t, h) for f, (_, t, h) in _rows(text).items()} == {
        f: (f, m.kind, m.help) for f, m in table.items()
    }
    assert len(table) == len(dcgm.METRICS) == 30  # no field twice


def test_fields_gpupool_reads_only_have_no_kept_section() -> None:
    every = [m.field for m in dcgm.METRICS]
    text = dcgm.metrics_list(every)
    assert dcgm.KEPT_HEADING not in text
    assert list(_rows(text)) == every


def test_list_keeps_every_field_of_the_exporters_default_list_with_its_type() -> None:
    # dcgm-exporter etc/dcp-metrics-included.csv (tests/dcgm_facts.EXPORTER_DEFAULT): turning
    # gpupool's alerts on replaces that list, and must take no series away.
    table = dcgm.by_field()
    for field, kind in dcgm_facts.EXPORTER_DEFAULT.items():
        assert table[field].kind == kind, field


def test_fields_beyond_the_default_list_are_the_alerts_custom_ones() -> None:
    # what the default list leaves out is what the needs name where gpupool does not set the list
    beyond = {m.field for m in dcgm.METRICS} - set(dcgm_facts.EXPORTER_DEFAULT)
    assert beyond == set(alerts.CUSTOM_METRICS)
    assert beyond == set(dcgm_facts.EXPORTER_COMMENTED_OUT) | dcgm_facts.EXPORTER_NAMES_NOWHERE
    table = dcgm.by_field()
    for field, kind in dcgm_facts.EXPORTER_COMMENTED_OUT.items():
        assert table[field].kind == kind == "counter", field  # the alerts take increase(), rate()


def test_row_remap_pending_is_a_flag_like_its_sibling() -> None:
    # go-dcgm const_fields.go: ROW_REMAP_PENDING "Whether remapping of rows is pending" and
    # ROW_REMAP_FAILURE "Whether remapping of rows has failed" are flags; dcgm-exporter's default
    # list types the second a gauge. The alert tests it against 0, not its increase.
    table = dcgm.by_field()
    assert table[alerts.REMAP_PENDING].kind == table[alerts.REMAP_FAILED].kind == "gauge"
    assert dcgm_facts.EXPORTER_DEFAULT[alerts.REMAP_FAILED] == "gauge"


def test_every_field_is_a_dcgm_field_and_none_under_two_names() -> None:
    # go-dcgm dcgm.GetFieldID: a name in dcgmFields or legacyDCGMFields. A legacy name is an alias
    # with the id of a current field; listing both would watch one field twice.
    facts = dcgm_facts.by_name()
    ids = [facts[m.field].id for m in dcgm.METRICS]
    assert len(set(ids)) == len(ids)
    legacy = [m.field for m in dcgm.METRICS if facts[m.field].kind == dcgm_facts.LEGACY]
    # the exporter's default list spells NVLink traffic by its legacy name; gpupool keeps it so
    # the series keeps its name
    assert legacy == ["DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL"]
    assert facts["DCGM_FI_DEV_NVLINK_THROUGHPUT_TOTAL"].id == facts[legacy[0]].id == 449


# go-dcgm's descriptions say "MB" for the framebuffer fields; dcgm-exporter's default list says
# MiB for the same fields, and so does gpupool.
_UNIT_SPELLING = {"MB": "MiB"}


def test_help_names_the_unit_dcgm_reports_in() -> None:
    facts = dcgm_facts.by_name()
    with_unit = [m for m in dcgm.METRICS if facts[m.field].unit is not None]
    assert len(with_unit) == 8
    for m in with_unit:
        unit = facts[m.field].unit
        assert f"({_UNIT_SPELLING.get(unit, unit)})" in m.help, m.field  # type: ignore[arg-type]


def test_a_field_without_a_row_is_an_internal_error() -> None:
    with pytest.raises(RenderError, match="no DCGM exporter metrics row for DCGM_FI_DEV_NOPE"):
        dcgm.metrics_list(["DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_NOPE"])


def test_the_reference_shows_the_list() -> None:
    text = (ROOT / "docs" / "stack-file.md").read_text(encoding="utf-8")
    assert f"```\n{_rendered().strip()}\n```" in text


# --------------------------------------------------------------------------- conformance


def _upstream() -> tuple[dict[str, str], dict[str, str], str]:
    """dcgm-exporter's list: the types of the rows it exports, of its commented rows, its text."""
    text = shared_upstream(UPSTREAM_LIST).read_text(encoding="utf-8")
    exported = {f: t for f, (_, t, _) in _rows(text).items()}
    commented: dict[str, str] = {}
    for line in text.splitlines():
        parts = [p.strip() for p in line.lstrip("#").split(",")]
        if line.startswith("#") and len(parts) == 3 and parts[0].startswith("DCGM_FI_"):
            commented[parts[0]] = parts[1]
    return exported, commented, text


def test_conformance_every_field_is_upstreams_with_its_type() -> None:
    # dcgm-exporter etc/dcp-metrics-included.csv at d5e5f510: each field gpupool lists is a row
    # there with the same Prometheus type, or one of the named exceptions: a row it keeps
    # commented out (same type), or ROW_REMAP_PENDING, which it names nowhere.
    exported, commented, text = _upstream()
    for m in dcgm.METRICS:
        if m.field in dcgm_facts.EXPORTER_COMMENTED_OUT:
            assert m.field not in exported
            assert commented[m.field] == m.kind, m.field
        elif m.field in dcgm_facts.EXPORTER_NAMES_NOWHERE:
            assert m.field not in text
        else:
            assert exported[m.field] == m.kind, m.field


def test_conformance_the_facts_are_the_upstream_lists() -> None:
    exported, commented, _ = _upstream()
    assert exported == dcgm_facts.EXPORTER_DEFAULT
    for field, kind in dcgm_facts.EXPORTER_COMMENTED_OUT.items():
        assert commented[field] == kind


def test_conformance_no_help_text_is_dcgm_exporters() -> None:
    # own words only: none of dcgm-exporter's help texts, in any case, in the list gpupool renders
    # or in a golden file (the goldens carry the list as the operator's values)
    _, _, text = _upstream()
    helps = set()
    for line in text.splitlines():
        parts = [p.strip() for p in line.lstrip("#").split(",")]
        if len(parts) == 3 and parts[0].startswith("DCGM_FI_"):
            helps.add(parts[2].lower())
    rendered = _rendered().lower()
    assert not [h for h in helps if h in rendered]
    for golden in sorted(p for p in GOLDEN.rglob("*") if p.is_file()):
        body = golden.read_text(encoding="utf-8").lower()
        assert not [h for h in helps if h in body], golden
