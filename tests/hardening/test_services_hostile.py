"""Hostile text in the services' fields reaches the program, the snippets and the output as data.

The schema keeps service names and Deployments DNS names, but a trigger's ``query`` is free text
(4096 characters) and PromQL string literals may hold quotes, backslashes, control characters,
workflow commands and markdown. Each case below goes around the schema where it must
(``dataclasses.replace`` on a validated stack, as ``tests/render/test_render_hostile.py`` does)
and checks that the rendered program compiles and, under Pulumi's mocks with the real SDKs, the
ScaledObject receives exactly the strings; that each snippet reads back as the same strings;
and that ``validate`` and ``plan`` print no raw control character and no line GitHub Actions
would run (``tests/hardening/test_fuzz.py``'s ``through_the_cli``).
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import pytest
import yaml

from gpupool import assemble, render
from gpupool.model import Stack
from gpupool.service_model import Service
from gpupool.sharing import workload_snippets
from tests.hardening.test_fuzz import CONTROL_STRINGS, through_the_cli
from tests.paths import FIXTURES
from tests.pulumi_mocks import run_programs
from tests.render.test_render_hostile import INJECTION, NASTY, assert_only_data
from tests.stacks import load_stack

CLEAN = FIXTURES / "valid" / "services-clean.yaml"
CONTROL = list(CONTROL_STRINGS)  # the fuzz suite's terminal escapes, workflow commands, markdown


def _hostile(text: str) -> Stack:
    """services-clean with ``text`` in every service's deployment, query and the stack label."""
    stack = load_stack(CLEAN)
    services = []
    for s in stack.services:
        triggers = tuple(dataclasses.replace(t, query=f"sum(x{{l={text!r}}})")
                         if t.query is not None else t for t in s.triggers)
        services.append(dataclasses.replace(s, deployment=f"d-{text}", triggers=triggers))
    return dataclasses.replace(stack, services=tuple(services),
                               labels={**stack.labels, "hostile": text})


def _query(s: Service) -> str | None:
    return next((t.query for t in s.triggers if t.query is not None), None)


@pytest.mark.cloud_sdks
def test_hostile_service_text_reaches_the_program_as_data() -> None:
    texts = [INJECTION, *NASTY[1:6], *CONTROL[:4]]
    with tempfile.TemporaryDirectory() as tmp:
        dirs, stacks = [], []
        for i, text in enumerate(texts):
            stack = _hostile(text)
            out = Path(tmp) / f"s{i}"
            render.render(stack, assemble.build(stack), out)
            main = (out / "__main__.py").read_text(encoding="utf-8")
            compile(main, str(out / "__main__.py"), "exec")
            assert_only_data(main)
            dirs.append(out)
            stacks.append(stack)
        runs = run_programs(dirs)
    for stack, run in zip(stacks, runs, strict=True):
        assert run.error is None, run.error
        scaled = {r["name"].split("/")[-1]: r["inputs"] for r in run.resources
                  if r["type"] == "kubernetes:keda.sh/v1alpha1:ScaledObject"}
        assert set(scaled) == {s.name for s in stack.services}
        for s in stack.services:
            spec = scaled[s.name]["spec"]
            assert spec["scaleTargetRef"]["name"] == s.deployment
            queries = [t["metadata"]["query"] for t in spec["triggers"]]
            if _query(s) is not None:
                assert _query(s) in queries


@pytest.mark.parametrize("text", [INJECTION, *NASTY, *CONTROL])
def test_hostile_service_text_reads_back_from_the_snippets(text: str) -> None:
    stack = _hostile(text)
    for s in stack.services:
        doc = yaml.safe_load(workload_snippets(stack)[f"snippets/service.{s.name}.yaml"])
        assert doc["metadata"]["labels"]["gpupool.io/service"] == s.name
        header = workload_snippets(stack)[f"snippets/service.{s.name}.yaml"].splitlines()[:2]
        assert all(line.startswith("# ") for line in header)  # a newline cannot end a comment


@pytest.mark.parametrize("text", CONTROL)
def test_a_hostile_query_in_a_stack_file_is_inert_on_the_command_line(text: str) -> None:
    source = CLEAN.read_text(encoding="utf-8")
    quoted = text.replace("\\", "\\\\").replace('"', '\\"')  # a PromQL string literal
    query = 'max(q{l="' + quoted + '"})'
    dumped = yaml.safe_dump(query, width=10_000).strip().removesuffix("...").strip()
    hostile = source.replace('query: "max(vllm:num_requests_waiting)"', f"query: {dumped}")
    assert hostile != source
    through_the_cli(hostile)
