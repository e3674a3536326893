"""The applied record: where it lives, atomic writes, round trips, and unreadable records."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gpupool import record
from gpupool.errors import StateError
from gpupool.graph import Lookup, Ref, Resource, ResourceGraph


def _graph(max_size: int = 8) -> ResourceGraph:
    pool = Resource(
        address="pool.infer.node_group",
        type="aws:eks/nodeGroup:NodeGroup",
        name="infer",
        inputs={
            "cluster_name": Ref("cluster.eks", "name"),
            "instance_types": ["g6.xlarge"],
            "scaling_config": {"min_size": 1, "max_size": max_size},
            "kubeconfig": Lookup("kubeconfig", {"cluster": "ml"}),
        },
        replace_on=("instance_types",),
        owner="pool:infer",
        facts={"kind": "node-pool", "pool": "infer", "nodes_max": max_size},
    )
    return ResourceGraph("ml-prod", "aws", (pool,))


def test_record_path_is_beside_the_stack_file(tmp_path: Path) -> None:
    """The record lives in <stack dir>/.gpupool/applied/<stack>.json."""
    stack_file = tmp_path / "stacks" / "prod.yaml"
    assert record.record_path(stack_file, "ml-prod") == (
        tmp_path / "stacks" / ".gpupool" / "applied" / "ml-prod.json"
    )


def test_write_then_read_round_trips_refs_and_lookups(tmp_path: Path) -> None:
    """What is written reads back equal, Refs and Lookups included; directories are created."""
    path = record.record_path(tmp_path / "prod.yaml", "ml-prod")
    record.write_applied(path, _graph())
    assert record.read_applied(path) == _graph()


def test_read_missing_record_is_none(tmp_path: Path) -> None:
    """No record yet means None (an empty base), not an error."""
    assert record.read_applied(tmp_path / "nothing.json") is None


def test_write_replaces_the_file_and_leaves_no_temp_file(tmp_path: Path) -> None:
    """A second write replaces the file by rename (a new inode) and leaves nothing else behind."""
    path = tmp_path / "applied" / "ml-prod.json"
    record.write_applied(path, _graph(8))
    first = path.stat().st_ino
    record.write_applied(path, _graph(4))
    assert path.stat().st_ino != first  # renamed over, never rewritten in place
    assert record.read_applied(path) == _graph(4)
    assert sorted(p.name for p in path.parent.iterdir()) == ["ml-prod.json"]


def test_write_syncs_the_file_and_the_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The data and the rename are both fsynced (file first, then its directory)."""
    synced: list[str] = []
    real_fsync = os.fsync

    def spy(fd: int) -> None:
        synced.append("dir" if os.path.isdir(f"/proc/self/fd/{fd}") else "file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", spy)
    record.write_applied(tmp_path / "ml-prod.json", _graph())
    if os.path.isdir("/proc/self/fd"):
        assert synced == ["file", "dir"]
    else:
        assert len(synced) == 2


def test_failed_write_keeps_the_old_record_and_cleans_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failed rename keeps the old record, leaves no temp file, and raises StateError."""
    path = tmp_path / "ml-prod.json"
    record.write_applied(path, _graph(8))

    def broken(src: str, dst: str, **_dir_fds: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(StateError, match=r"cannot write the applied record .*No space left"):
        record.write_applied(path, _graph(4))
    assert record.read_applied(path) == _graph(8)
    assert [p.name for p in tmp_path.iterdir()] == ["ml-prod.json"]


@pytest.mark.parametrize(
    "content",
    [
        "not json at all {",
        "[1, 2, 3]",
        json.dumps({"graph_format": "999", "stack": "x", "cloud": "aws", "resources": []}),
        json.dumps({"graph_format": "1", "stack": "x", "cloud": "aws"}),
        json.dumps({"graph_format": "1", "stack": "x", "cloud": "aws", "resources": [{}]}),
    ],
    ids=["garbage", "a-list", "unknown-format", "no-resources", "resource-without-keys"],
)
def test_unreadable_record_raises_state_error_in_one_sentence(tmp_path: Path, content: str) -> None:
    """A corrupt or unknown-format record is a StateError naming the file and what to do."""
    path = tmp_path / "ml-prod.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(StateError) as caught:
        record.read_applied(path)
    message = str(caught.value)
    assert str(path) in message
    assert "corrupt or of an unknown format" in message
    assert "\n" not in message


def test_binary_record_raises_state_error(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 are a StateError too, never a crash."""
    path = tmp_path / "ml-prod.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(StateError, match="cannot read the applied record"):
        record.read_applied(path)
