"""``gpupool advise --demo``: a generated cluster served on loopback as Prometheus's query API.

``scenario`` holds the bundled example stack and the series its exporters would have written,
``promql`` evaluates the part of PromQL advise sends, and ``server`` answers
``/api/v1/query`` and ``/api/v1/query_range`` on 127.0.0.1 from them.
"""
