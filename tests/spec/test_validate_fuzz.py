"""Property tests: validate never raises and always returns sorted, placed diagnostics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupool.spec import diagnostics
from gpupool.spec.validate import validate_text
from tests import paths

EXAMPLES = sorted(paths.EXAMPLES.glob("*.yaml"))
KEYS = [
    "apiVersion",
    "kind",
    "metadata",
    "name",
    "provider",
    "cloud",
    "pools",
    "tenants",
    "sharing",
    "mode",
    "replicas",
    "mig",
    "layout",
    "fractional",
    "slotsPerGpu",
    "nodes",
    "min",
    "max",
    "capacity",
    "type",
    "instanceType",
    "gpu",
    "model",
    "count",
    "quota",
    "gpus",
    "3g.40gb",
    "checkpoint",
    "everySeconds",
    "writeSeconds",
    "restoreSeconds",
    "maxDowntimeSeconds",
    "startupSeconds",
    "perHour",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["aws", "kubernetes", "mig", "spot", "A100-SXM4-80GB", "g6.xlarge", "-1"]),
)
yamlish = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=8)), inner, max_size=5),
    ),
    max_leaves=30,
)


def check(text: str) -> None:
    result = validate_text(text, "fuzz.yaml")
    diags = list(result.diagnostics)
    assert diags == diagnostics.sort(diags)
    for d in diags:
        assert d.summary and d.code
        assert d.range is not None and d.range.filename == "fuzz.yaml"
    assert result.valid == (not diagnostics.has_errors(diags))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_arbitrary_text_never_raises(text: str) -> None:
    """Any text at all yields diagnostics, never an exception."""
    check(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(yamlish)
def test_arbitrary_yaml_shaped_data_never_raises(data: Any) -> None:
    """Any YAML-shaped document yields sorted diagnostics, never an exception."""
    check(yaml.safe_dump(data, allow_unicode=True))


def _mutate(data: Any, path: list[Any], value: Any) -> Any:
    if not path:
        return value
    head, *rest = path
    if isinstance(data, dict):
        out = dict(data)
        key = list(out)[head % len(out)] if out else "x"
        out[key] = _mutate(out.get(key), rest, value)
        return out
    if isinstance(data, list) and data:
        out_l = list(data)
        i = head % len(out_l)
        out_l[i] = _mutate(out_l[i], rest, value)
        return out_l
    return value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(EXAMPLES),
    st.lists(st.integers(0, 50), min_size=1, max_size=5),
    yamlish,
)
def test_mutated_examples_never_raise(example: Path, path: list[int], value: Any) -> None:
    """Examples with one value replaced anywhere still validate without raising."""
    data = yaml.safe_load(example.read_text(encoding="utf-8"))
    check(yaml.safe_dump(_mutate(data, path, value), allow_unicode=True))


HOSTILE_SCALARS = st.sampled_from([
    "!!bool perhaps", "!!timestamp not-a-date", "!!timestamp 2024-13-45", "!!int twelve",
    "!!float one", "!!binary 'not base64 %'", ".nan", ".inf", "-.inf", "1.0e+400", "1.0e+308",
    '"lab\\n"', '"\\x1b[2J\\x07"', '"x\\n::error::forged"', '"\\u202e"',
])  # fmt: skip
MUST_FAIL = ("!!", ".nan", ".inf", "-.inf", "1.0e+400")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(EXAMPLES), st.integers(0, 10_000), HOSTILE_SCALARS)
def test_hostile_scalars_in_examples_never_raise(example: Path, line: int, value: str) -> None:
    """An explicit tag, NaN, an infinity, a newline or a control character at any value.

    Tags and non-finite numbers always make the file invalid (``yaml.bad-scalar``,
    ``yaml.not-finite``); nothing ever raises.
    """
    lines = example.read_text(encoding="utf-8").splitlines()
    spots = [i for i, text in enumerate(lines)
             if ": " in text and not text.lstrip().startswith(("#", "-")) and
             not text.rstrip().endswith(":") and "{" not in text and "[" not in text]
    i = spots[line % len(spots)]
    key = lines[i].split(": ", 1)[0]
    lines[i] = f"{key}: {value}"
    text = "\n".join(lines) + "\n"
    check(text)
    if value.startswith(MUST_FAIL):
        codes = {d.code for d in validate_text(text, "f.yaml").diagnostics}
        assert codes & {"yaml.bad-scalar", "yaml.not-finite"}, codes
