"""gpupool init: a starter stack for every cloud and a few GPUs, through the real validator."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpupool import catalog, clouds
from gpupool.cli import run
from gpupool.errors import InputError
from gpupool.formats import FORMAT_VERSION
from gpupool.spec.validate import validate_file
from gpupool.usecases import init


@pytest.mark.parametrize("cloud", clouds.names())
def test_every_cloud_gets_a_starter_that_validates_without_a_warning(
    cloud: str, tmp_path: Path
) -> None:
    """The default GPU on each cloud: valid, no warning (cost advice may come), schema line
    first, placeholders marked."""
    path = tmp_path / "stacks" / "new.yaml"
    starter = init.init(path, cloud)
    result = validate_file(path)
    problems = [d.summary for d in result.diagnostics if d.severity.value in ("error", "warning")]
    assert result.valid and not problems, problems
    assert result.stack is not None and result.stack.provider.cloud == cloud
    text = path.read_text(encoding="utf-8")
    first = text.splitlines()[0]
    assert first.startswith("# yaml-language-server: $schema=")
    schema = (path.parent / first.split("$schema=", 1)[1]).resolve()
    assert schema.name == "gpupool.schema.json" and schema.is_file()
    assert result.stack.pools[0].gpu is not None
    assert result.stack.pools[0].gpu.name == starter.gpu.name
    if clouds.get(cloud).starter:  # every cloud with something to fill in says so
        assert "REPLACE-ME" in text


GPUS = ["L4", "T4", "A100-SXM4-80GB", "H100-SXM5-80GB", "A10"]


@pytest.mark.parametrize("cloud", clouds.names())
@pytest.mark.parametrize("gpu", GPUS)
def test_a_named_gpu_validates_or_is_refused_with_what_the_cloud_offers(
    cloud: str, gpu: str, tmp_path: Path
) -> None:
    """Where the catalog has the GPU on that cloud the starter uses it and validates."""
    path = tmp_path / "s.yaml"
    cloud_ = clouds.get(cloud)
    offered = {i.gpu for i in catalog.instances(cloud)} if cloud_.has_instance_catalog else None
    if offered is not None and gpu not in offered:
        with pytest.raises(InputError, match=r"lists no .* instance type with"):
            init.init(path, cloud, gpu)
        assert not path.exists()
        return
    starter = init.init(path, cloud, gpu)
    result = validate_file(path)
    assert result.valid, [d.summary for d in result.diagnostics]
    assert result.stack is not None
    pool = result.stack.pools[0]
    assert pool.gpu is not None and pool.gpu.name == gpu
    if starter.instance is not None:
        assert pool.instance_type == starter.instance.name


def test_the_issue_command_writes_a_stack_that_validates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`gpupool init --cloud aws --gpu L4 stacks/new.yaml`, then `gpupool validate` exits 0."""
    monkeypatch.chdir(tmp_path)
    assert run(["init", "--cloud", "aws", "--gpu", "L4", "stacks/new.yaml"]) == 0
    assert "Wrote stacks/new.yaml" in capsys.readouterr().out
    assert run(["validate", "stacks/new.yaml"]) == 0
    # valid, with no warning; cost advice (info) may come with it, as the catalog's prices allow
    assert re.fullmatch(r"stacks/new\.yaml: valid( \(\d+ advice items?\))?\n",
                        capsys.readouterr().out)


def test_init_never_overwrites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An existing file (or a link where the file would go) is left alone, exit 1, one line."""
    path = tmp_path / "mine.yaml"
    path.write_text("my own stack\n", encoding="utf-8")
    assert run(["init", "--cloud", "gcp", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "already exists" in err and len(err.splitlines()) == 1
    assert path.read_text(encoding="utf-8") == "my own stack\n"
    link = tmp_path / "link.yaml"
    link.symlink_to(tmp_path / "elsewhere.yaml")
    with pytest.raises(InputError, match="already exists"):
        init.init(link, "gcp")
    assert not (tmp_path / "elsewhere.yaml").exists()


def test_unknown_gpu_and_cloud_are_clear_errors(tmp_path: Path) -> None:
    """A misspelt GPU gets the closest names; an unknown cloud is a usage error."""
    with pytest.raises(InputError, match=r"unknown GPU 'H1000' \(closest: H100"):
        init.init(tmp_path / "s.yaml", "aws", "H1000")
    assert run(["init", "--cloud", "ibm", str(tmp_path / "s.yaml")]) == 64


def test_init_json_says_what_it_wrote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--format json: one document naming the file, the choices made and the next command; an
    error is the one JSON error document (exit 1), and the existing file is left alone."""
    path = tmp_path / "new.yaml"
    assert run(["init", "--cloud", "aws", "--gpu", "L4", "--format", "json", str(path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc == {
        "format_version": FORMAT_VERSION, "file": str(path), "cloud": "aws", "stack": "new",
        "pool": doc["pool"], "gpu": "L4", "instance_type": "g6.2xlarge",
        "placeholder": "REPLACE-ME", "next": f"gpupool validate {path}",
        "pools": [{"name": doc["pool"], "gpu": "L4", "instance_type": "g6.2xlarge"}],
    }  # fmt: skip
    text = path.read_text(encoding="utf-8")
    assert f"- name: {doc['pool']}" in text and "REPLACE-ME" in text
    assert run(["init", "--cloud", "aws", "--format", "json", str(path)]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["exit_code"] == 1 and "already exists" in error["message"]
    assert path.read_text(encoding="utf-8") == text


def test_a_name_too_long_or_a_file_as_parent_is_said_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 27 item 6: a file name over 255 bytes was an internal error, and a parent that is
    a regular file was reported as "already exists"."""
    long = tmp_path / ("a" * 300 + ".yaml")
    assert run(["init", "--cloud", "aws", str(long)]) == 1
    err = capsys.readouterr().err
    assert "internal error" not in err
    assert err.startswith("error: ") and "cannot be written (File name too long)" in err
    assert len(err.splitlines()) == 1
    afile = tmp_path / "afile"
    afile.write_text("mine\n", encoding="utf-8")
    for target in (afile / "x.yaml", afile / "sub" / "x.yaml"):
        with pytest.raises(InputError) as caught:
            init.init(target, "aws")
        assert "already exists" not in str(caught.value)
        assert str(caught.value) == (
            f"{target}: cannot be written: {afile} is a file, not a folder")
    assert afile.read_text(encoding="utf-8") == "mine\n"


def test_several_gpus_give_a_pool_each_and_a_gpu_named_twice_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`init --gpu L4 --gpu H100` kept only the last; now a pool per GPU, in the order given,
    each on its own instance type, the tenant given both; L4 named twice (alias) is refused."""
    path = tmp_path / "two.yaml"
    assert run(["init", "--cloud", "aws", "--gpu", "L4", "--gpu", "H100", "--format", "json",
                str(path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    result = validate_file(path)
    assert result.valid and result.stack is not None
    stack = result.stack
    assert [p.gpu.name for p in stack.pools if p.gpu] == ["L4", "H100-SXM5-80GB"]
    assert [p["gpu"] for p in doc["pools"]] == ["L4", "H100-SXM5-80GB"]
    assert [p.instance_type for p in stack.pools] == [p["instance_type"] for p in doc["pools"]]
    assert stack.tenants[0].pools == tuple(p.name for p in stack.pools)
    other = tmp_path / "again.yaml"
    with pytest.raises(InputError, match=r"--gpu l4 names L4 again \(as --gpu L4\)"):
        init.init(other, "aws", ["L4", "l4"])
    assert not other.exists()
