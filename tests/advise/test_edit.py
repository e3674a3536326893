"""Stack edits written back keep the file's comments, key order, layout, mode, links and edits."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from gpupool.advise.edit import EditError, Source, apply, read_source, write_back

BLOCK = """\
pools:
  - name: vgpu  # the inference pool
    sharing:
      mode: fractional  # HAMi slots
      fractional:
        slotsPerGpu: 4    # four pods a GPU
        memoryGiB: 6
        coresPercent: 25  # a quarter of the SMs
"""


def test_a_mapping_edit_keeps_the_comments_inside_it() -> None:
    out = apply(BLOCK, [(("pools", 0, "sharing", "fractional"),
                         {"slotsPerGpu": 3, "memoryGiB": 8.0, "coresPercent": 25})])
    assert out.splitlines()[:4] == BLOCK.splitlines()[:4]
    assert "        slotsPerGpu: 3    # four pods a GPU" in out
    assert "        memoryGiB: 8.0" in out
    assert "        coresPercent: 25  # a quarter of the SMs" in out


def test_keys_the_new_value_lacks_are_removed() -> None:
    out = apply(BLOCK, [(("pools", 0, "sharing", "fractional"), {"slotsPerGpu": 2})])
    assert "memoryGiB" not in out and "coresPercent" not in out
    assert "        slotsPerGpu: 2    # four pods a GPU" in out


def test_a_new_key_in_a_flow_mapping_stays_flow() -> None:
    out = apply("pools:\n  - name: a\n    nodes: {min: 2, max: 4}  # warm\n",
                [(("pools", 0, "nodes", "min"), 1)])
    assert out == "pools:\n  - name: a\n    nodes: {min: 1, max: 4}  # warm\n"


def test_a_path_the_file_lacks_is_a_clear_error() -> None:
    with pytest.raises(EditError, match=r"the stack file has no pools\.3\.nodes"):
        apply(BLOCK, [(("pools", 3, "nodes", "min"), 1)])


# --- writing back: nothing made meanwhile is lost, the file keeps its mode and its links ---

LIMIT = 1 << 20


def _source(tmp_path: Path, text: str = BLOCK, mode: int = 0o644) -> Source:
    path = tmp_path / "stack.yaml"
    path.write_text(text)
    path.chmod(mode)
    return read_source(path, LIMIT)


def test_a_file_changed_since_it_was_read_is_not_written(tmp_path: Path) -> None:
    source = _source(tmp_path)
    source.path.write_text(BLOCK + "# an edit made while advise queried\n")
    with pytest.raises(EditError, match=r"stack\.yaml changed since advise read it at .*: "
                       "nothing written"):
        write_back(source, source.path, b"edited\n", LIMIT)
    assert source.path.read_text().endswith("# an edit made while advise queried\n")


def test_a_same_size_edit_or_a_touch_is_a_change_too(tmp_path: Path) -> None:
    source = _source(tmp_path)
    source.path.write_text(BLOCK.replace("vgpu", "gpuv"))  # same size, other content
    with pytest.raises(EditError, match="changed since advise read it"):
        write_back(source, source.path, b"edited\n", LIMIT)
    source = _source(tmp_path)
    os.utime(source.path, ns=(1, 1))  # the same bytes, another modification time
    with pytest.raises(EditError, match="changed since advise read it"):
        write_back(source, source.path, b"edited\n", LIMIT)


def test_a_file_replaced_by_another_is_a_change(tmp_path: Path) -> None:
    source = _source(tmp_path)
    other = tmp_path / "other.yaml"
    other.write_text(BLOCK)
    os.utime(other, ns=(source.identity[3], source.identity[3]))
    other.replace(source.path)  # the same bytes and time under a new inode
    with pytest.raises(EditError, match="changed since advise read it"):
        write_back(source, source.path, b"edited\n", LIMIT)


@pytest.mark.parametrize("mode", [0o640, 0o600, 0o664, 0o755])
@pytest.mark.parametrize("umask", [0o022, 0o077, 0o000])
def test_a_file_written_back_keeps_its_mode(tmp_path: Path, mode: int, umask: int) -> None:
    # before: the atomic replace made a new file with 0666 less the umask (0640 became 0644)
    source = _source(tmp_path, mode=mode)
    old = os.umask(umask)
    try:
        write_back(source, source.path, b"edited\n", LIMIT)
    finally:
        os.umask(old)
    assert source.path.read_text() == "edited\n"
    assert stat.S_IMODE(source.path.stat().st_mode) == mode


def test_a_new_write_target_gets_the_umask_s_mode(tmp_path: Path) -> None:
    source = _source(tmp_path)
    target = tmp_path / "advised.yaml"
    old = os.umask(0o027)
    try:
        write_back(source, target, b"edited\n", LIMIT)
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


@pytest.mark.parametrize("mode", [0o444, 0o440, 0o400])
def test_a_read_only_file_is_refused_even_for_root(tmp_path: Path, mode: int) -> None:
    # before: the rename over it needs only the folder's permission, so a read-only stack
    # became a writable one
    source = _source(tmp_path, mode=mode)
    with pytest.raises(EditError, match=rf"stack\.yaml is read-only \(mode {mode:04o}\)"):
        write_back(source, source.path, b"edited\n", LIMIT)
    assert source.path.read_text() == BLOCK
    assert stat.S_IMODE(source.path.stat().st_mode) == mode


def test_a_hard_linked_file_is_refused_and_both_names_keep_their_text(tmp_path: Path) -> None:
    # before: the rename put a new file under one name; the other kept the old text, silently
    source = _source(tmp_path)
    twin = tmp_path / "twin.yaml"
    os.link(source.path, twin)
    source = read_source(source.path, LIMIT)
    with pytest.raises(EditError, match=r"stack\.yaml has 2 hard links: .* nothing written"):
        write_back(source, source.path, b"edited\n", LIMIT)
    assert source.path.read_text() == BLOCK and twin.read_text() == BLOCK
    assert source.path.stat().st_ino == twin.stat().st_ino
