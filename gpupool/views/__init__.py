"""Command output: how each command's result reads for people (text, markdown) and scripts (JSON).

One module per command, each computing nothing and printing nothing: it turns a result into the
text the command line writes.

- ``validate``: ``gpupool validate`` (and the diagnostics every stack-reading command prints);
- ``plan``: ``gpupool plan`` and ``gpupool preview``, dispatching on ``--format`` to
  ``plan_text`` (which also holds the tables and notes the formats share), ``plan_json`` (the
  JSON document) and ``plan_markdown`` (the pull-request comment), and to ``plan_summary`` (the
  summary every form leads with, all ``--summary`` prints); ``plan_numbers`` formats their
  numbers and money;
- ``render``: what ``gpupool render`` says it wrote;
- ``engine``: ``gpupool up`` / ``destroy`` progress lines, their closing summary and their JSON;
- ``errors``: the one JSON shape of an error, for every command run with ``--format json``;
- ``colour``: ANSI colours laid over finished text, for a terminal;
- ``drift``: ``gpupool drift`` in text, JSON and markdown;
- ``catalog``: ``gpupool catalog gpus|instances``;
- ``node``: ``gpupool node inspect``.

Every JSON document carries ``gpupool.formats.FORMAT_VERSION``. A view that writes to both
streams returns an ``Output``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Output:
    """What a command writes: its result for stdout, and notes for stderr (people, not scripts).

    Attributes:
        result: the command's result (text, JSON or markdown), for stdout.
        notes: diagnostics and notes on how the result was made, for stderr (may be empty).

    """

    result: str
    notes: str
