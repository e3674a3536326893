"""Output of ``gpupool node inspect``: the node report as text for people or JSON for drift.

The JSON document is the report's own shape (``NodeReport.to_json``, which ``gpupool drift
--node-reports`` reads back), keys sorted; the text is ``gpupool.nodes.text``'s.
"""

from __future__ import annotations

import json

from gpupool.nodes import NodeReport, format_text


def render(report: NodeReport, fmt: str) -> str:
    """Render a node report as ``text`` or ``json``."""
    if fmt == "json":
        return json.dumps(report.to_json(), indent=2, sort_keys=True) + "\n"
    return format_text(report)
