"""The advise report shows what the server said as literal text: labels are data, not markup."""

from __future__ import annotations

import re

from gpupool.advise.evidence import Evidence
from gpupool.advise.recommendation import Recommendation
from gpupool.advise.report import AdviseResult
from gpupool.views import advise as view

HOSTILE = "node <img src=x onerror=alert(1)> `x` | [a](http://evil)\n::error::boom"


def _result() -> AdviseResult:
    rec = Recommendation(kind="spot", pool="gpu", tenant=None, path=("pools", 0, "capacity"),
                         value={"type": "spot", "onDemandBase": 1},
                         summary=f"gpu: owners ({HOSTILE} 3)", saving_per_month=12.5)
    ev = Evidence(window_seconds=86400.0, end=0.0, pools={}, tenants={})
    return AdviseResult(stack="s", file="s.yaml", evidence=ev, currency="USD",
                        recommendations=(rec,), dropped=(), gaps=(f"1 node(s) ({HOSTILE})",),
                        written=None)


def test_markdown_shows_server_labels_as_literal_text() -> None:
    out = view.render(_result(), "markdown")
    assert "<img" not in out and "&lt;img" in out
    assert "[a](http" not in out and "\\[a\\]" in out  # brackets escaped: no link
    assert "\n::error::" not in out
    # the table keeps its columns: every row has the header's cells
    rows = [line for line in out.splitlines() if line.startswith("| spot")]
    # a cell ends at a pipe after an even number of backslashes (none, or escaped ones)
    assert len(rows) == 1 and len(re.findall(r"(?<!\\)(?:\\\\)*\|", rows[0])) == 6


def test_text_keeps_each_server_value_on_its_line() -> None:
    out = view.render(_result(), "text")
    assert "\n::error::" not in out
    assert "::error::boom" in out  # shown, on the line it belongs to
