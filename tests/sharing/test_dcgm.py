"""The DCGM exporter's metrics list gpupool renders (``gpupool/sharing/dcgm.py``).

The list must parse the way dcgm-exporter parses it (``tests/manifests.parse_dcgm_metrics``,
after dcgm-exporter internal/pkg/counters/counter_config.go and Go's encoding/csv), keep the
exporter's default list unchanged and add only rows in its format whose fields DCGM knows
(go-dcgm pkg/dcgm/const_fields.go, kept in ``tests/upstream``).
"""

from __future__ import annotations

import pytest

from gpupool.errors import RenderError
from gpupool.sharing import alerts, dcgm
from tests.manifests import dcgm_fields, parse_dcgm_metrics, validate_dcgm_metrics
from tests.paths import ROOT, UPSTREAM


def _rendered() -> str:
    return dcgm.metrics_list(alerts.read_metrics())


def _rows(text: str) -> dict[str, tuple[str, str, str]]:
    rows, errors = parse_dcgm_metrics(text)
    assert errors == []
    return {row[0]: row for row in rows}


def test_the_default_list_is_the_one_the_sources_record() -> None:
    # tests/upstream/SOURCES.md records where the package copy comes from.
    sources = (UPSTREAM / "SOURCES.md").read_text(encoding="utf-8")
    assert f"gpupool/sharing/{dcgm.DEFAULT_LIST_FILE}" in sources
    # dcgm-exporter's own default list parses by its own rules
    assert validate_dcgm_metrics(dcgm.default_list()) == []


def test_rendered_list_keeps_the_default_list_unchanged_and_adds_the_custom_fields() -> None:
    default, rendered = dcgm.default_list(), _rendered()
    # every line of the default list, comments included, in order and unchanged
    assert rendered.startswith(default)
    added = rendered[len(default) :].splitlines()
    assert added[:2] == ["", dcgm.ADDED_HEADING]
    before, after = _rows(default), _rows(rendered)
    assert {k: v for k, v in after.items() if k in before} == before
    assert set(after) - set(before) == set(alerts.CUSTOM_METRICS)
    assert len(added) == 2 + len(alerts.CUSTOM_METRICS)


def test_rendered_list_parses_by_the_exporters_rules() -> None:
    # dcgm-exporter counter_config.go: 3 fields, a DCGM field name, a known Prometheus type;
    # any error and the exporter exits at start, exporting nothing.
    assert validate_dcgm_metrics(_rendered()) == []


def test_added_rows_are_the_rows_dcgm_exporter_keeps_commented_out() -> None:
    # dcgm-exporter etc/dcp-metrics-included.csv (and etc/default-counters.csv) carry these
    # rows commented out: `# DCGM_FI_DEV_POWER_VIOLATION, counter, Throttling duration ...`.
    commented = {}
    for line in dcgm.default_list().splitlines():
        if line.startswith("# DCGM_FI_"):
            commented |= _rows(line.removeprefix("# "))
    rows = _rows(_rendered())
    for metric in (alerts.DBE, alerts.THERMAL, alerts.POWER):
        assert rows[metric] == commented[metric]
        assert rows[metric][1] == "counter"  # the alerts take increase() and rate() of them


def test_row_remap_pending_row_follows_dcgm_and_its_sibling() -> None:
    # No dcgm-exporter list has a row for DCGM_FI_DEV_ROW_REMAP_PENDING; go-dcgm
    # const_fields.go describes it as "Whether remapping of rows is pending", a flag like
    # DCGM_FI_DEV_ROW_REMAP_FAILURE, which the default list types as a gauge.
    text = dcgm.default_list()
    assert alerts.REMAP_PENDING not in text
    current, _, described = dcgm_fields()
    assert alerts.REMAP_PENDING in current
    rows = _rows(_rendered())
    _, prom_type, help_text = rows[alerts.REMAP_PENDING]
    assert help_text == described[alerts.REMAP_PENDING]
    assert prom_type == _rows(text)[alerts.REMAP_FAILED][1] == "gauge"


def test_every_field_of_the_rendered_list_is_a_dcgm_field() -> None:
    current, legacy, _ = dcgm_fields()
    assert set(_rows(_rendered())) <= current | legacy


def test_fields_already_exported_add_nothing() -> None:
    assert dcgm.metrics_list(["DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED"]) == (
        dcgm.default_list()
    )


def test_a_field_without_a_row_is_an_internal_error() -> None:
    with pytest.raises(RenderError, match="no DCGM exporter metrics row for DCGM_FI_DEV_NOPE"):
        dcgm.metrics_list(["DCGM_FI_DEV_NOPE"])

def test_the_reference_shows_the_rows_gpupool_adds() -> None:
    added = _rendered()[len(dcgm.default_list()) :].strip("\n")
    text = (ROOT / "docs" / "stack-file.md").read_text(encoding="utf-8")
    assert f"```\n{added}\n```" in text
