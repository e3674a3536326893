"""Stack edits written back keep the file's comments, key order and layout (ruamel.yaml)."""

from __future__ import annotations

import pytest

from gpupool.advise.edit import EditError, apply

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
