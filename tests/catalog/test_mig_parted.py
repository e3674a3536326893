"""Every configuration of NVIDIA mig-parted's default config is accepted on the GPU it is for.

The configurations are those of mig-parted's own ``deployments/systemd/config-default.yaml`` at
tag v0.15.0, the ones the GPU Operator's MIG Manager ships, read from gpupool's table of them
(``tests/upstream_facts/mig-parted-config-default.json``, which ``tests/test_upstream_facts.py``
checks against the upstream file). mig-parted applies an entry with a
``device-filter`` only to GPUs whose PCI id (device + vendor, ``0x233010DE``) it lists, and an
entry without one to every GPU (``devices: all``). So:

- an entry with a filter must be accepted on the catalog GPU of each PCI id it lists, and each
  id must be a catalog GPU (found through ``catalog.gpu_by_pci_id``);
- an entry without a filter must be accepted on every catalog GPU that has all of its profiles,
  and at least one GPU must have them (otherwise gpupool would refuse a configuration NVIDIA
  ships).

"Accepted" is gpupool's own MIG check twice over: ``catalog.fit_layout`` (the placement search)
and the whole validation of an existing-cluster stack whose pool carries that layout (profile
names, maxima, compute slices, placement, and the schema's profile-name pattern).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache

import pytest

from gpupool import catalog
from gpupool.catalog import GpuModel
from gpupool.spec.validate import validate_text
from tests.upstream_facts import mig_parted_config, mig_parted_default


@cache
def _configs() -> Mapping[str, list[dict]]:
    return mig_parted_config(mig_parted_default())["mig-configs"]


def _entries() -> Iterator[tuple[str, int, dict]]:
    for name, entries in _configs().items():
        for index, entry in enumerate(entries):
            if entry.get("mig-enabled") and entry.get("mig-devices"):
                yield name, index, entry


def _filter(entry: dict) -> list[str]:
    raw = entry.get("device-filter", [])
    return [raw] if isinstance(raw, str) else list(raw)


def _targets(entry: dict) -> list[GpuModel]:
    """The catalog GPUs an entry applies to (see the module docstring)."""
    ids = _filter(entry)
    if ids:
        found = [(device, catalog.gpu_by_pci_id(device)) for device in ids]
        missing = [device for device, model in found if model is None]
        assert not missing, f"no catalog GPU has PCI id {missing}"
        return [model for _, model in found if model is not None]
    wanted = set(entry["mig-devices"])
    return [
        model
        for model in catalog.gpus()
        if model.mig is not None and wanted <= {p.name for p in model.mig.profiles}
    ]


ENTRIES = list(_entries())


def test_the_file_is_the_whole_default_config() -> None:
    """The table holds every configuration family (a truncated one would test little)."""
    assert len(_configs()) == 81
    assert len(ENTRIES) == 92
    assert sum(1 for _, _, e in ENTRIES if _filter(e)) == 16


@pytest.mark.parametrize(
    ("config", "index", "entry"), ENTRIES, ids=[f"{c}[{i}]" for c, i, _ in ENTRIES]
)
def test_every_configuration_fits_on_its_gpus(config: str, index: int, entry: dict) -> None:
    """Each entry's mig-devices fit, by gpupool's placement search, on each GPU it targets."""
    targets = _targets(entry)
    assert targets, f"{config}: no catalog GPU offers {sorted(entry['mig-devices'])}"
    for model in targets:
        fit = catalog.fit_layout(model, entry["mig-devices"])
        assert fit.ok, (config, model.name, fit.detail)


def _stack(config: str, pools: list[tuple[GpuModel, dict]]) -> str:
    lines = [
        "apiVersion: gpupool.io/v1",
        "kind: GpuPoolStack",
        f"metadata: {{name: {config.replace('.', '-').lower()[:40]}}}",
        "provider: {cloud: kubernetes}",
        "pools:",
    ]
    for i, (model, layout) in enumerate(pools):
        body = ", ".join(f'"{name}": {count}' for name, count in layout.items())
        lines += [
            f"  - name: p{i}",
            f"    nodeNames: [n{i}]",
            f"    gpu: {{model: {model.name}, count: 8}}",
            f"    sharing: {{mode: mig, mig: {{layout: {{{body}}}}}}}",
        ]
    return "\n".join(lines) + "\n"


def test_every_configuration_validates_in_a_stack() -> None:
    """An existing-cluster stack with one pool per (configuration, GPU) validates cleanly."""
    failures = []
    for config, index, entry in ENTRIES:
        pools = [(model, entry["mig-devices"]) for model in _targets(entry)]
        result = validate_text(_stack(config, pools), f"{config}-{index}.yaml")
        errors = [d for d in result.diagnostics if d.is_error]
        mig = [d for d in result.diagnostics if d.code.startswith(("mig.", "schema."))]
        if errors or mig:
            failures.append((config, index, [(d.code, d.summary) for d in errors + mig]))
    assert not failures


def test_filtered_groups_name_the_gpus_their_comments_name() -> None:
    """The PCI ids of the all-balanced groups resolve to the GPUs mig-parted's comments name."""
    expected = {
        "0x294110DE": "GB200",
        "0x31C210DE": "GB300",
        "0x2BB510DE": "RTX-PRO-6000",
        "0x290110DE": "B200",
        "0x318210DE": "B300",
        "0x234810DE": "GH200-144GB",
        "0x233510DE": "H200-SXM5-141GB",
        "0x233B10DE": "H200-NVL-141GB",
        "0x232110DE": "H100-NVL-94GB",
        "0x233A10DE": "H800-NVL-94GB",
        "0x233010DE": "H100-SXM5-80GB",
        "0x232410DE": "H800-SXM5-80GB",
        "0x20B210DE": "A100-SXM4-80GB",
        "0x20F310DE": "A800-SXM4-80GB",
        "0x20B010DE": "A100-SXM4-40GB",
        "0x20F610DE": "A800-PCIE-40GB",
        "0x20B710DE": "A30",
        "0x232910DE": "H20",
        "0x234210DE": "GH200-96GB",
    }
    for device, name in expected.items():
        model = catalog.gpu_by_pci_id(device)
        assert model is not None and model.name == name, device
    # the same id in the spellings mig-parted and lspci use
    assert catalog.gpu_by_pci_id("0x2330") is catalog.gpu_by_pci_id("233010de")
    assert catalog.gpu_by_pci_id("0x9999") is None


def test_a_profile_over_its_maximum_is_still_refused() -> None:
    """The configurations are accepted because they fit, not because nothing is checked."""
    gb300 = catalog.gpu("GB300")
    rtx = catalog.gpu("RTX-PRO-6000")
    assert gb300 is not None and rtx is not None
    assert not catalog.fit_layout(gb300, {"1g.70gb": 5}).ok
    assert not catalog.fit_layout(rtx, {"1g.24gb+me.all": 1, "1g.24gb+me": 1}).ok
    assert not catalog.fit_layout(rtx, {"2g.48gb": 2, "1g.24gb": 1}).ok
    result = validate_text(_stack("over", [(gb300, {"3g.139gb": 3})]), "over.yaml")
    assert [d.code for d in result.diagnostics if d.is_error] == ["mig.too-many"]
