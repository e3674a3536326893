"""One "did you mean" for every near miss (gpupool.didyoumean, issue 36).

A catalog name always gets suggestions, ranked on lower-cased names with names containing what
was written first; a key, value or column gets one only when it is near (difflib's
``get_close_matches`` rule), a difference in case alone not counting unless asked.
"""

from __future__ import annotations

from gpupool import catalog
from gpupool.didyoumean import closest
from gpupool.simulate.columns import BY_NAME


def test_catalog_names_always_get_suggestions_best_first() -> None:
    aws_names = [e.name for e in catalog.instances(cloud="aws")]
    assert closest("g6.xlarg", aws_names)[0] == "g6.xlarge"
    assert closest("p5.48xl", aws_names)[0] == "p5.48xlarge"
    assert len(closest("zzzz-unrelated", aws_names)) == 3
    assert closest("A100", catalog.gpu_names())[:2] == ["A100-40GB", "A100-80GB"]
    assert closest("x", ["b", "a"], n=5) == ["a", "b"]
    assert closest("x", ["a", "a", "b"], n=5) == ["a", "b"]
    assert closest("x", []) == []


def test_a_near_hit_or_none_with_a_cutoff() -> None:
    keys = ["metadata", "provider", "pools", "tenants"]
    assert closest("tenant", keys, 1, cutoff=0.6) == ["tenants"]
    assert closest("zzzz", keys, 1, cutoff=0.6) == []
    # differing in case alone: that name, before a nearer spelling as written
    assert closest("Provider", [*keys, "Providers"], 1, cutoff=0.6) == ["provider"]
    # nothing near as written (upper case shares no letter), so compared lower-cased
    assert closest("POOLZ", keys, 1, cutoff=0.6) == ["pools"]


def test_columns_compare_as_written() -> None:
    """A workload's columns are case-sensitive: as written, ``GPU_memory_gib`` is nearest
    ``memory_gib``; folding case would name ``gpu_memory_gib``."""
    assert closest("GPU_memory_gib", BY_NAME, 1, cutoff=0.6, fold_case=False) == ["memory_gib"]
    assert closest("GPU_memory_gib", BY_NAME, 1, cutoff=0.6) == ["gpu_memory_gib"]
    assert closest("POOLZ", BY_NAME, 1, cutoff=0.6, fold_case=False) == []
