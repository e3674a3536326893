"""Rendering safety: names cannot write outside ``--out``, and user strings stay data.

The schema makes stack, pool and tenant names DNS labels, so a valid file cannot name a path. These
tests go around the schema (``dataclasses.replace`` on a validated stack) to check render's own
guard: traversal through tenant and pool names, absolute paths, NUL bytes, and symlinks planted in
the output directory (a directory, a program file, a dangling link, the file index) must make
render refuse before anything is written outside. The last test extends
``tests/render/test_render_hostile.py`` to the free-text fields it does not cover (zones, node
names, label keys, the GPU Operator version, the backend, and the stack, pool, tenant and
namespace names) on every cloud.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from gpupool import assemble, lock, outdir, record, render
from gpupool.errors import StateError
from gpupool.model import Stack
from gpupool.render import RenderError
from tests.pulumi_mocks import run_programs
from tests.render.test_render_hostile import (
    EXAMPLES,
    INJECTION,
    NASTY,
    assert_only_data,
    check,
    hostile,
)
from tests.render.test_render_hostile import load as load_example

NODE_POOL = {
    "aws": "aws:eks/nodeGroup:NodeGroup",
    "gcp": "gcp:container/nodePool:NodePool",
    "azure": "azure-native:containerservice:AgentPool",
    "volcengine": "volcengine:vke/nodePool:NodePool",
    "kubernetes": "kubernetes:core/v1:NodePatch",
}


def outside_untouched(tmp_path: Path, before: dict[str, bytes]) -> None:
    """Nothing outside ``out`` changed: same files, same bytes."""
    now = {
        str(p.relative_to(tmp_path)): p.read_bytes()
        for p in tmp_path.rglob("*")
        if p.is_file() and not p.is_symlink() and "out" not in p.relative_to(tmp_path).parts[:1]
    }
    assert now == before


def snapshot(tmp_path: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(tmp_path)): p.read_bytes()
        for p in tmp_path.rglob("*")
        if p.is_file() and not p.is_symlink() and "out" not in p.relative_to(tmp_path).parts[:1]
    }


def with_tenant_name(stack: Stack, name: str) -> Stack:
    return dataclasses.replace(
        stack, tenants=(dataclasses.replace(stack.tenants[0], name=name), *stack.tenants[1:])
    )


def with_pool_name(stack: Stack, name: str) -> Stack:
    old = stack.pools[0].name
    pools = (dataclasses.replace(stack.pools[0], name=name), *stack.pools[1:])
    tenants = tuple(
        dataclasses.replace(t, pools=tuple(name if p == old else p for p in t.pools))
        for t in stack.tenants
    )
    return dataclasses.replace(stack, pools=pools, tenants=tenants)


@pytest.mark.parametrize(
    "name",
    ["../../x", "../../../../../../../../tmp/gpupool-escape", "a/../../../x", "../../../out2/x"],
)
def test_tenant_names_cannot_traverse_out_of_the_output_directory(
    tmp_path: Path, name: str
) -> None:
    """A tenant name with '..' that would put a snippet outside --out is refused."""
    stack = with_tenant_name(load_example("aws"), name)
    (tmp_path / "victim").write_text("keep", encoding="utf-8")
    before = snapshot(tmp_path)
    with pytest.raises(RenderError, match="refusing to write"):
        render.render(stack, assemble.build(stack), tmp_path / "out" / "deep")
    outside_untouched(tmp_path, before)


@pytest.mark.parametrize(
    "name", ["../../../x", "/etc/passwd", "/tmp/../x", "a\\..\\..\\b", "n\0ul"]
)
def test_hostile_pool_names_never_write_outside(tmp_path: Path, name: str) -> None:
    """Pool names with separators are refused or land inside --out, never outside."""
    stack = with_pool_name(load_example("kubernetes"), name)
    before = snapshot(tmp_path)
    out = tmp_path / "out"
    try:
        result = render.render(stack, assemble.build(stack), out)
    except RenderError as exc:
        assert "refusing to write" in str(exc)
    else:
        assert all(p.resolve().is_relative_to(out.resolve()) for p in result.files)
    outside_untouched(tmp_path, before)


@pytest.mark.parametrize(
    "rel", ["", "/etc/passwd", "../x", "a/../../x", "a\\b", "a\0b", ".", "a/..", "//x"]
)
def test_inside_refuses_paths_that_leave_the_root(tmp_path: Path, rel: str) -> None:
    """``outdir._inside`` accepts only relative paths that resolve strictly inside the root."""
    with pytest.raises(RenderError, match="refusing to write"):
        outdir._inside(tmp_path.resolve(), rel)


def test_inside_accepts_plain_relative_paths(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    assert outdir._inside(root, "manifests/a.yaml") == root / "manifests" / "a.yaml"
    assert outdir._inside(root, "snippets/t--..yaml") == root / "snippets" / "t--..yaml"


@pytest.mark.parametrize(
    "planted", ["manifests", "snippets", "__main__.py", "README.md", ".gpupool-files", "dangling"]
)
def test_symlinks_in_the_output_directory_are_not_followed_outside(
    tmp_path: Path, planted: str
) -> None:
    """A symlink in --out that points outside makes render refuse before writing anything."""
    stack = load_example("gcp")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.txt").write_text("do not overwrite", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    if planted in ("manifests", "snippets"):
        (out / planted).symlink_to(elsewhere, target_is_directory=True)
    elif planted == "dangling":
        (out / "Pulumi.yaml").symlink_to(elsewhere / "created-by-render.yaml")
    else:
        (out / planted).symlink_to(elsewhere / "secret.txt")
    before = snapshot(tmp_path)
    with pytest.raises(RenderError, match="resolves outside"):
        render.render(stack, assemble.build(stack), out)
    outside_untouched(tmp_path, before)
    assert sorted(p.name for p in elsewhere.iterdir()) == ["secret.txt"]


def test_a_planted_index_cannot_delete_files_outside(tmp_path: Path) -> None:
    """The index of a previous render names files to remove; it cannot name outside files."""
    stack = load_example("aws")
    victim = tmp_path / "victim.txt"
    victim.write_text("keep", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.yaml").write_text("keep", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / "link").symlink_to(elsewhere, target_is_directory=True)
    for listed in ("../victim.txt", str(victim), "link/x.yaml"):
        (out / ".gpupool-files").write_text(f"{listed}\n", encoding="utf-8")
        with pytest.raises(RenderError, match="refusing to write"):
            render.render(stack, assemble.build(stack), out)
    assert victim.read_text(encoding="utf-8") == "keep"
    assert (elsewhere / "x.yaml").read_text(encoding="utf-8") == "keep"


@pytest.mark.parametrize("name", ["../../x", "..", "a/b", "/abs", "a\\b", "n\0ul", ""])
def test_stack_names_cannot_steer_default_paths(tmp_path: Path, name: str) -> None:
    """The build directory, the applied record and the lock file refuse non-file names."""
    stack = dataclasses.replace(load_example("aws"), name=name)
    with pytest.raises(RenderError, match="not a file name"):
        render.default_out_dir(tmp_path / "s.yaml", stack)
    with pytest.raises(StateError, match="cannot name a file"):
        record.record_path(tmp_path / "s.yaml", name)
    with pytest.raises(StateError, match="cannot name a file"):
        lock.lock_path(tmp_path / "s.yaml", name)


# -- every free-text field of every cloud reaches the program as data -----------------------------

EXTRA = ("zone", "node", "stack_label_key", "version", "pool", "tenant", "namespace", "stack",
         "backend")  # fmt: skip
# Names become file names (snippets/<tenant>--<pool>.yaml) and must not hold '/', '\' or NUL,
# which render refuses (tested above); everything else is fair game.
name_text = st.text(
    st.characters(exclude_categories=("Cs",), exclude_characters="/\\\0"), min_size=1, max_size=12
).filter(lambda s: s not in (".", ".."))
text = st.one_of(
    st.sampled_from(NASTY),
    st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=12),
)


def _clean(s: str) -> str:
    return s.replace("/", "|").replace("\\", "|").replace("\0", "0")


def extended(cloud: str, h: dict[str, str], x: dict[str, str]) -> Stack:
    """``hostile`` plus a hostile pool and tenant, zones, node names, label key, versions."""
    stack = hostile(cloud, h)
    first = stack.pools[0]
    pool = dataclasses.replace(
        first,
        name="p" + x["pool"],
        zones=(x["zone"],),
        node_names=(x["node"],) if cloud == "kubernetes" else first.node_names,
    )
    tenant = dataclasses.replace(
        stack.tenants[0], name="t" + x["tenant"], namespace="n" + x["namespace"], pools=(pool.name,)
    )
    operator = dataclasses.replace(stack.cluster.gpu_operator, install=True, version=x["version"])
    settings_ = stack.provider.settings
    if settings_.subnet_zones:  # aws: the hostile zone gets a subnet of its own
        settings_ = dataclasses.replace(
            settings_, subnet_zones=(*settings_.subnet_zones, ("subnet-" + x["zone"], x["zone"])))
    return dataclasses.replace(
        stack,
        provider=dataclasses.replace(stack.provider, settings=settings_),
        name="s" + x["stack"],
        backend="file://" + x["backend"],
        labels={**stack.labels, "k-" + x["stack_label_key"]: "v"},
        cluster=dataclasses.replace(stack.cluster, gpu_operator=operator),
        pools=(*stack.pools, pool),
        tenants=(*stack.tenants, tenant),
    )


def check_extended(cloud: str, run, x: dict[str, str], out: Path) -> None:
    pool, tenant, namespace = "p" + x["pool"], "t" + x["tenant"], "n" + x["namespace"]
    stack_name = "s" + x["stack"]
    pools = run.by_type(NODE_POOL[cloud])
    if cloud == "kubernetes":
        [patch] = [p for p in pools if p["name"] == x["node"]]
        assert patch["inputs"]["metadata"]["name"] == x["node"]
        assert patch["inputs"]["metadata"]["labels"]["gpupool.io/pool"] == pool
    else:
        [mine] = [p for p in pools if p["name"] == pool]
        if cloud == "gcp":
            assert mine["inputs"]["nodeLocations"] == [x["zone"]]
        if cloud == "azure":
            assert mine["inputs"]["availabilityZones"] == [x["zone"]]
        if cloud == "aws":  # the subnets of its zone, and only those
            assert mine["inputs"]["subnetIds"] == ["subnet-" + x["zone"]]
    namespaces = {n["inputs"]["metadata"]["name"]: n for n in run.by_type(
        "kubernetes:core/v1:Namespace")}  # fmt: skip
    labels = namespaces[namespace]["inputs"]["metadata"]["labels"]
    assert labels["k-" + x["stack_label_key"]] == "v"
    assert labels["gpupool.io/stack"] == stack_name
    if cloud == "azure":  # KAI: one queue per tenant
        assert tenant in {q["inputs"]["metadata"]["name"] for q in run.by_type(
            "kubernetes:scheduling.run.ai/v2:Queue")}  # fmt: skip
    [operator] = [r for r in run.by_type("kubernetes:helm.sh/v3:Release")
                  if r["name"] == "gpu-operator"]  # fmt: skip
    assert operator["inputs"]["version"] == x["version"]
    project = yaml.safe_load((out / "Pulumi.yaml").read_text(encoding="utf-8"))
    assert project["name"] == stack_name
    readme = (out / "README.md").read_text(encoding="utf-8")
    [export] = [line for line in readme.splitlines() if "PULUMI_BACKEND_URL" in line]
    # the backend cannot close the quote it is shown in, nor start a command of its own
    shown = r"export PULUMI_BACKEND_URL='[^'`$;]*' +# the stack's state.backend"
    assert re.fullmatch(shown, export)
    snippets = sorted((out / "snippets").glob(f"{tenant}--*.yaml"))
    assert [p.name for p in snippets] == [f"{tenant}--{pool}.yaml"]


FIXED_X = {f: _clean(NASTY[(i + 3) % len(NASTY)]) for i, f in enumerate(EXTRA)}


@pytest.mark.cloud_sdks  # runs the programs under the provider SDKs' mocks
@settings(
    max_examples=1,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],  # shrinking re-runs the mocks for minutes
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    st.lists(st.fixed_dictionaries({f: text for f in (
        "cluster", "region", "subnet", "role", "project", "group", "sg", "context",
        "stack_label", "label_key", "label_value", "taint_key", "taint_value")}),
        min_size=len(EXAMPLES), max_size=len(EXAMPLES)),
    st.lists(st.fixed_dictionaries({f: name_text for f in EXTRA}),
             min_size=len(EXAMPLES), max_size=len(EXAMPLES)),
)  # fmt: skip
@example(
    [{f: INJECTION for f in ("cluster", "region", "subnet", "role", "project", "group", "sg",
      "context", "stack_label", "label_key", "label_value", "taint_key", "taint_value")}] * 5,
    [{f: _clean(INJECTION) for f in EXTRA}] * 5,
)  # fmt: skip
@example(
    [{f: "{{ 7 * 7 }}" for f in ("cluster", "region", "subnet", "role", "project", "group", "sg",
      "context", "stack_label", "label_key", "label_value", "taint_key", "taint_value")}] * 5,
    [dict(FIXED_X)] * 5,
)  # fmt: skip
def test_every_free_text_field_of_every_cloud_reaches_the_program_as_data(
    records: list[dict[str, str]], extras: list[dict[str, str]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        dirs = []
        for cloud, h, x in zip(EXAMPLES, records, extras, strict=True):
            stack = extended(cloud, h, x)
            out = Path(tmp) / cloud
            render.render(stack, assemble.build(stack), out)
            main = (out / "__main__.py").read_text(encoding="utf-8")
            compile(main, str(out / "__main__.py"), "exec")
            assert_only_data(main)
            for manifest in (out / "manifests").glob("*.yaml"):
                yaml.safe_load(manifest.read_text(encoding="utf-8"))
            json.dumps(assemble.build(stack).dumps())
            dirs.append(out)
        runs = run_programs(dirs)
        cases = zip(EXAMPLES, records, extras, strict=True)
        for (cloud, h, x), run, out in zip(cases, runs, dirs, strict=True):
            check(cloud, run, h)
            check_extended(cloud, run, x, out)
