"""gpupool.nodes against a stand-in NVML, and node reports read back from JSON.

The stand-in implements the pynvml functions gpupool.nodes.nvml calls, with the constants and the
NVMLError classes of the real pynvml module, so every failure goes through the real error
classes (``NVMLError(code)`` maps to ``NVMLError_NotSupported`` and friends).
"""

from __future__ import annotations

import ast
import json
import re
import socket
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gpupool.errors import GpupoolError, InputError
from gpupool.nodes import NodeReport, NodeUnavailableError, format_text, inspect, nvml
from tests.paths import FIXTURES, PACKAGE

pynvml = pytest.importorskip("pynvml")

MIB = 1024 * 1024
NOT_SUPPORTED = pynvml.NVML_ERROR_NOT_SUPPORTED


# --------------------------------------------------------------------------- stand-in


@dataclass
class FakeMig:
    gi_id: int
    ci_id: int
    gi_profile_id: int
    uuid: str
    gi_slices: int
    ci_slices: int
    memory_mib: int
    used_mib: int = 0
    multiprocessors: int = 14


@dataclass
class FakeGpu:
    name: str = "NVIDIA A100-SXM4-80GB"
    uuid: str = "GPU-5b3c7a52-1d7e-2f4a-9c3e-0a1b2c3d4e5f"
    total_mib: int = 81920
    used_mib: int = 512
    capability: tuple[int, int] | int = (8, 0)
    mig: tuple[int, int] | int = (0, 0)  # (current, pending) or an NVML error code
    migs: list[FakeMig] = field(default_factory=list)
    max_mig_devices: int = 7
    ecc_mode: tuple[int, int] | int = (1, 1)
    # {(error_type, counter_type): count}; a missing key raises NOT_SUPPORTED
    ecc: dict[tuple[int, int], int] = field(
        default_factory=lambda: {(0, 0): 0, (1, 0): 0, (0, 1): 0, (1, 1): 0}
    )
    temperature: int = 41
    slowdown: int | None = 87
    shutdown: int | None = 92
    power_mw: int | None = 63_250
    limit_mw: int | None = 400_000
    persistence: int | None = 1
    lost: bool = False
    gi_by_id_error: int | None = None  # e.g. NO_PERMISSION for an unprivileged user


# A100-SXM4-80GB GPU-instance profiles: enum index -> (profile id, name, memorySizeMB, slices).
A100_80GB_PROFILES = {
    pynvml.NVML_GPU_INSTANCE_PROFILE_1_SLICE: (19, b"MIG 1g.10gb", 9728, 1),
    pynvml.NVML_GPU_INSTANCE_PROFILE_2_SLICE: (14, b"MIG 2g.20gb", 19968, 2),
    pynvml.NVML_GPU_INSTANCE_PROFILE_3_SLICE: (9, b"MIG 3g.40gb", 40192, 3),
    pynvml.NVML_GPU_INSTANCE_PROFILE_4_SLICE: (5, b"MIG 4g.40gb", 40192, 4),
    pynvml.NVML_GPU_INSTANCE_PROFILE_7_SLICE: (0, b"MIG 7g.80gb", 81152, 7),
    pynvml.NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1: (20, b"MIG 1g.10gb+me", 9728, 1),
    pynvml.NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2: (15, b"MIG 1g.20gb", 19968, 1),
}

READ_ONLY_CALL = re.compile(
    r"^nvml(Init|Shutdown|SystemGet\w+|DeviceGet\w+|GpuInstanceGet\w+|DeviceIsMigDeviceHandle)$"
)


class FakeNVML:
    """Enough of pynvml for gpupool.nodes, recording every nvml* attribute it looks up."""

    def __init__(
        self,
        gpus: list[FakeGpu],
        *,
        init_error: int | None = None,
        count_error: int | None = None,
        driver: str | None = "550.54.15",
    ) -> None:
        for name in dir(pynvml):
            if name.startswith(("NVML_", "NVMLError")):
                setattr(self, name, getattr(pynvml, name))
        self.gpus = gpus
        self.init_error = init_error
        self.count_error = count_error
        self.driver = driver
        self.looked_up: list[str] = []
        self.initialised = False
        self.shutdowns = 0

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("nvml"):
            object.__getattribute__(self, "looked_up").append(name)
        return object.__getattribute__(self, name)

    @staticmethod
    def _fail(code: int) -> None:
        raise pynvml.NVMLError(code)

    # -- system
    def nvmlInit(self) -> None:
        if self.init_error is not None:
            self._fail(self.init_error)
        self.initialised = True

    def nvmlShutdown(self) -> None:
        self.shutdowns += 1

    def nvmlSystemGetDriverVersion(self) -> str:
        if self.driver is None:
            self._fail(NOT_SUPPORTED)
        return self.driver

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        return 12040

    def nvmlSystemGetNVMLVersion(self) -> str:
        return "12.550.54.15"

    def nvmlDeviceGetCount(self) -> int:
        if self.count_error is not None:
            self._fail(self.count_error)
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> FakeGpu:
        gpu = self.gpus[index]
        if gpu.lost:
            self._fail(pynvml.NVML_ERROR_GPU_IS_LOST)
        return gpu

    # -- device (full GPU or MIG device)
    def nvmlDeviceGetName(self, handle: FakeGpu) -> str:
        return handle.name

    def nvmlDeviceGetUUID(self, handle: FakeGpu | FakeMig) -> str:
        return handle.uuid

    def nvmlDeviceGetMemoryInfo(self, handle: FakeGpu | FakeMig) -> SimpleNamespace:
        if isinstance(handle, FakeMig):
            total, used = handle.memory_mib, handle.used_mib
        else:
            total, used = handle.total_mib, handle.used_mib
        return SimpleNamespace(total=total * MIB, used=used * MIB, free=(total - used) * MIB)

    def nvmlDeviceGetCudaComputeCapability(self, handle: FakeGpu) -> tuple[int, int]:
        if isinstance(handle.capability, int):
            self._fail(handle.capability)
        return handle.capability

    def nvmlDeviceGetMigMode(self, handle: FakeGpu) -> list[int]:
        if isinstance(handle.mig, int):
            self._fail(handle.mig)
        return list(handle.mig)

    def nvmlDeviceGetMaxMigDeviceCount(self, handle: FakeGpu) -> int:
        return handle.max_mig_devices

    def nvmlDeviceGetMigDeviceHandleByIndex(self, handle: FakeGpu, index: int) -> FakeMig:
        if index >= len(handle.migs):
            self._fail(pynvml.NVML_ERROR_NOT_FOUND)
        return handle.migs[index]

    def nvmlDeviceGetGpuInstanceId(self, mig: FakeMig) -> int:
        return mig.gi_id

    def nvmlDeviceGetComputeInstanceId(self, mig: FakeMig) -> int:
        return mig.ci_id

    def nvmlDeviceGetAttributes(self, mig: FakeMig) -> SimpleNamespace:
        return SimpleNamespace(
            multiprocessorCount=mig.multiprocessors,
            sharedCopyEngineCount=1,
            sharedDecoderCount=0,
            sharedEncoderCount=0,
            sharedJpegCount=0,
            sharedOfaCount=0,
            gpuInstanceSliceCount=mig.gi_slices,
            computeInstanceSliceCount=mig.ci_slices,
            memorySizeMB=mig.memory_mib,
        )

    def nvmlDeviceGetGpuInstanceById(self, handle: FakeGpu, gi_id: int) -> tuple[FakeGpu, int]:
        if handle.gi_by_id_error is not None:
            self._fail(handle.gi_by_id_error)
        return (handle, gi_id)

    def nvmlGpuInstanceGetInfo(self, gi: tuple[FakeGpu, int]) -> SimpleNamespace:
        gpu, gi_id = gi
        mig = next(m for m in gpu.migs if m.gi_id == gi_id)
        return SimpleNamespace(device=gpu, id=gi_id, profileId=mig.gi_profile_id)

    def nvmlDeviceGetGpuInstanceProfileInfo(self, handle: FakeGpu, profile: int) -> Any:
        if profile not in A100_80GB_PROFILES:
            self._fail(NOT_SUPPORTED)
        profile_id, name, memory, slices = A100_80GB_PROFILES[profile]
        return SimpleNamespace(id=profile_id, name=name, memorySizeMB=memory, sliceCount=slices)

    def nvmlDeviceGetEccMode(self, handle: FakeGpu) -> list[int]:
        if isinstance(handle.ecc_mode, int):
            self._fail(handle.ecc_mode)
        return list(handle.ecc_mode)

    def nvmlDeviceGetTotalEccErrors(self, handle: FakeGpu, error_type: int, counter: int) -> int:
        if (error_type, counter) not in handle.ecc:
            self._fail(NOT_SUPPORTED)
        return handle.ecc[(error_type, counter)]

    def nvmlDeviceGetTemperature(self, handle: FakeGpu, sensor: int) -> int:
        assert sensor == pynvml.NVML_TEMPERATURE_GPU
        return handle.temperature

    def nvmlDeviceGetTemperatureThreshold(self, handle: FakeGpu, threshold: int) -> int:
        value = {
            pynvml.NVML_TEMPERATURE_THRESHOLD_SLOWDOWN: handle.slowdown,
            pynvml.NVML_TEMPERATURE_THRESHOLD_SHUTDOWN: handle.shutdown,
        }[threshold]
        if value is None:
            self._fail(NOT_SUPPORTED)
        return value

    def nvmlDeviceGetPowerUsage(self, handle: FakeGpu) -> int:
        if handle.power_mw is None:
            self._fail(NOT_SUPPORTED)
        return handle.power_mw

    def nvmlDeviceGetEnforcedPowerLimit(self, handle: FakeGpu) -> int:
        if handle.limit_mw is None:
            self._fail(NOT_SUPPORTED)
        return handle.limit_mw

    def nvmlDeviceGetPersistenceMode(self, handle: FakeGpu) -> int:
        if handle.persistence is None:
            self._fail(NOT_SUPPORTED)
        return handle.persistence


def mig_a100(**overrides: Any) -> FakeGpu:
    """An A100-80GB in MIG mode: 3g.40gb, 2g.20gb split into two 1-slice CIs, 1g.10gb."""
    migs = [
        FakeMig(1, 0, 9, "MIG-aaaa1111-0000-0000-0000-000000000001", 3, 3, 40192, 1200, 42),
        FakeMig(5, 0, 14, "MIG-bbbb2222-0000-0000-0000-000000000002", 2, 1, 19968, 0, 14),
        FakeMig(5, 1, 14, "MIG-bbbb2222-0000-0000-0000-000000000003", 2, 1, 19968, 0, 14),
        FakeMig(13, 0, 19, "MIG-cccc3333-0000-0000-0000-000000000004", 1, 1, 9728, 300, 14),
    ]
    return FakeGpu(mig=(1, 1), migs=migs, **overrides)


def t4(**overrides: Any) -> FakeGpu:
    defaults: dict[str, Any] = {
        "name": "Tesla T4",
        "uuid": "GPU-1f2e3d4c-0000-0000-0000-00000000007a",
        "total_mib": 15360,
        "used_mib": 0,
        "capability": (7, 5),
        "mig": NOT_SUPPORTED,
        "max_mig_devices": 0,
        "slowdown": 94,
        "shutdown": 96,
        "limit_mw": 70_000,
        "power_mw": 27_000,
    }
    defaults.update(overrides)
    return FakeGpu(**defaults)


@pytest.fixture(autouse=True)
def _hostname(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "gethostname", lambda: "gpu-node-01")


def assert_read_only(fake: FakeNVML) -> None:
    """Every NVML entry point gpupool looked up is a getter (or init/shutdown)."""
    bad = sorted({name for name in fake.looked_up if not READ_ONLY_CALL.match(name)})
    assert bad == []


# --------------------------------------------------------------------------- tests


def test_mig_enabled_lists_gpu_and_compute_instances_with_profile_names() -> None:
    fake = FakeNVML([mig_a100()])
    report = inspect(fake)
    data = report.to_json()

    assert data["format_version"] == "1"
    assert data["hostname"] == "gpu-node-01"
    assert data["driver_version"] == "550.54.15"
    assert data["cuda_driver_version"] == "12.4"
    assert data["nvml_version"] == "12.550.54.15"
    gpu = data["gpus"][0]
    assert gpu["name"] == "NVIDIA A100-SXM4-80GB"
    assert gpu["compute_capability"] == "8.0"
    assert gpu["memory"] == {"total_mib": 81920, "used_mib": 512}
    mig = gpu["mig"]
    assert (mig["supported"], mig["current"], mig["pending"]) == (True, "enabled", "enabled")
    assert [
        (gi["id"], gi["profile"], gi["memory_mib"], gi["slices"]) for gi in mig["gpu_instances"]
    ] == [
        (1, "3g.40gb", 40192, 3),
        (5, "2g.20gb", 19968, 2),
        (13, "1g.10gb", 9728, 1),
    ]
    split = mig["gpu_instances"][1]["compute_instances"]
    assert [(ci["id"], ci["profile"]) for ci in split] == [(0, "1c.2g.20gb"), (1, "1c.2g.20gb")]
    first = mig["gpu_instances"][0]["compute_instances"][0]
    assert first == {
        "id": 0,
        "profile": "3g.40gb",
        "uuid": "MIG-aaaa1111-0000-0000-0000-000000000001",
        "memory_total_mib": 40192,
        "memory_used_mib": 1200,
        "multiprocessors": 42,
    }
    assert data["faults"] == []
    assert json.loads(json.dumps(data)) == data
    assert fake.shutdowns == 1
    assert_read_only(fake)


def test_unprivileged_user_gets_profile_names_derived_from_mig_attributes() -> None:
    fake = FakeNVML([mig_a100(gi_by_id_error=pynvml.NVML_ERROR_NO_PERMISSION)])
    gis = inspect(fake).to_json()["gpus"][0]["mig"]["gpu_instances"]
    assert [gi["profile"] for gi in gis] == ["3g.40gb", "2g.20gb", "1g.10gb"]
    assert [ci["profile"] for ci in gis[1]["compute_instances"]] == ["1c.2g.20gb"] * 2
    # memory comes from the MIG device's attributes when the profile table is out of reach
    assert [gi["memory_mib"] for gi in gis] == [40192, 19968, 9728]


@pytest.mark.parametrize(
    ("total_mib", "memory_mb", "slices", "expected"),
    [
        (81920, 9728, 1, "1g.10gb"),  # A100-SXM4-80GB
        (81920, 40192, 3, "3g.40gb"),
        (81920, 81152, 7, "7g.80gb"),
        (40960, 4864, 1, "1g.5gb"),  # A100-SXM4-40GB
        (143771, 16384, 1, "1g.18gb"),  # H200
        (24576, 5888, 1, "1g.6gb"),  # A30
    ],
)
def test_derived_profile_name_follows_go_nvlib_rounding(
    total_mib: int, memory_mb: int, slices: int, expected: str
) -> None:
    attrs = SimpleNamespace(gpuInstanceSliceCount=slices, memorySizeMB=memory_mb)
    assert nvml._derived_profile(attrs, total_mib * MIB) == expected


def test_mig_capable_but_disabled_reports_pending_change_and_no_instances() -> None:
    fake = FakeNVML([FakeGpu(mig=(0, 1))])
    report = inspect(fake)
    mig = report.to_json()["gpus"][0]["mig"]
    assert mig == {
        "supported": True,
        "current": "disabled",
        "pending": "enabled",
        "gpu_instances": [],
    }
    assert "pending enabled" in format_text(report)
    assert "nvmlDeviceGetMigDeviceHandleByIndex" not in fake.looked_up


def test_gpu_without_mig_reports_not_supported() -> None:
    report = inspect(FakeNVML([t4()]))
    gpu = report.to_json()["gpus"][0]
    assert gpu["mig"] == {"supported": False, "current": None, "pending": None, "gpu_instances": []}
    assert gpu["compute_capability"] == "7.5"
    assert gpu["power"] == {"draw_w": 27.0, "limit_w": 70.0}
    assert "MIG          not supported" in format_text(report)


def test_uncorrected_ecc_errors_are_faults() -> None:
    ecc = {(0, 0): 12, (1, 0): 2, (0, 1): 40, (1, 1): 5}
    report = inspect(FakeNVML([FakeGpu(), FakeGpu(ecc=ecc)]))
    data = report.to_json()
    assert data["gpus"][1]["ecc"] == {
        "mode": "enabled",
        "volatile": {"corrected": 12, "uncorrected": 2},
        "aggregate": {"corrected": 40, "uncorrected": 5},
    }
    assert data["faults"] == [
        {
            "gpu": 1,
            "kind": "ecc",
            "detail": "2 uncorrected ECC errors since the driver loaded, 5 over the GPU's lifetime",
        }
    ]


def test_lifetime_uncorrected_ecc_alone_is_a_fault_and_corrected_errors_are_not() -> None:
    only_aggregate = {(0, 0): 0, (1, 0): 0, (0, 1): 3, (1, 1): 1}
    only_corrected = {(0, 0): 900, (1, 0): 0, (0, 1): 9000, (1, 1): 0}
    faults = inspect(FakeNVML([FakeGpu(ecc=only_aggregate), FakeGpu(ecc=only_corrected)])).faults
    assert [(f.gpu, f.kind) for f in faults] == [(0, "ecc")]


def test_overheating_against_slowdown_threshold_or_85_c_when_unknown() -> None:
    gpus = [
        FakeGpu(temperature=87, slowdown=87),  # at the threshold: fault
        FakeGpu(temperature=86, slowdown=None),  # no threshold, >= 85: fault
        FakeGpu(temperature=84, slowdown=None),  # no threshold, < 85: fine
        FakeGpu(temperature=86, slowdown=90),  # below its own threshold: fine
    ]
    faults = inspect(FakeNVML(gpus)).to_json()["faults"]
    assert [(f["gpu"], f["kind"]) for f in faults] == [(0, "overheat"), (1, "overheat")]
    assert "slowdown threshold of 87 C" in faults[0]["detail"]
    assert "default limit" in faults[1]["detail"] and "85 C" in faults[1]["detail"]


def test_unsupported_fields_degrade_to_none_without_crashing() -> None:
    gpu = t4(
        capability=NOT_SUPPORTED,
        ecc_mode=NOT_SUPPORTED,
        ecc={},
        slowdown=None,
        shutdown=None,
        power_mw=None,
        limit_mw=None,
        persistence=None,
        temperature=40,
    )
    fake = FakeNVML([gpu], driver=None)
    report = inspect(fake)
    data = report.to_json()
    assert data["driver_version"] is None
    got = data["gpus"][0]
    assert got["compute_capability"] is None
    assert got["ecc"] == {
        "mode": None,
        "volatile": {"corrected": None, "uncorrected": None},
        "aggregate": {"corrected": None, "uncorrected": None},
    }
    assert got["temperature"] == {"gpu_c": 40, "slowdown_c": None, "shutdown_c": None}
    assert got["power"] == {"draw_w": None, "limit_w": None}
    assert got["persistence_mode"] is None
    assert data["faults"] == []
    text = format_text(report)
    assert "n/a" in text and "driver n/a" in text


def test_functions_missing_from_an_old_binding_degrade_to_none() -> None:
    fake = FakeNVML([mig_a100()])
    # an nvidia-ml-py too old for MIG and for the GPU-instance calls
    for name in ("nvmlDeviceGetMaxMigDeviceCount", "nvmlDeviceGetGpuInstanceById"):
        setattr(fake, name, None)
    gpu = inspect(fake).to_json()["gpus"][0]
    assert gpu["mig"]["current"] == "enabled"
    assert gpu["mig"]["gpu_instances"] == []


def test_lost_gpu_is_reported_as_unreachable_and_others_still_read() -> None:
    report = inspect(FakeNVML([FakeGpu(lost=True), t4()]))
    data = report.to_json()
    assert data["gpus"][0]["error"] == "GPU is lost"
    assert data["gpus"][0]["name"] is None
    assert data["gpus"][1]["name"] == "Tesla T4"
    assert data["faults"] == [
        {"gpu": 0, "kind": "unreachable", "detail": "NVML cannot open the GPU: GPU is lost"}
    ]
    assert "GPU 0  unreachable: GPU is lost" in format_text(report)


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (pynvml.NVML_ERROR_LIBRARY_NOT_FOUND, "libnvidia-ml.so.1 was not found"),
        (pynvml.NVML_ERROR_DRIVER_NOT_LOADED, "kernel driver is not loaded"),
        (pynvml.NVML_ERROR_NO_PERMISSION, "permission denied"),
        (pynvml.NVML_ERROR_LIB_RM_VERSION_MISMATCH, "versions differ"),
        (pynvml.NVML_ERROR_UNKNOWN, "nvmlInit failed (Unknown Error)"),
    ],
)
def test_nvml_that_cannot_start_raises_node_unavailable(code: int, words: str) -> None:
    fake = FakeNVML([FakeGpu()], init_error=code)
    with pytest.raises(NodeUnavailableError) as caught:
        inspect(fake)
    message = str(caught.value)
    assert words in message
    assert message.startswith("NVML is unavailable: ") and message.endswith(".")
    assert "\n" not in message
    assert isinstance(caught.value, GpupoolError) and caught.value.exit_code == 1
    assert isinstance(caught.value.__cause__, pynvml.NVMLError)
    assert fake.shutdowns == 0


def test_failing_gpu_count_raises_and_still_shuts_nvml_down() -> None:
    fake = FakeNVML([], count_error=pynvml.NVML_ERROR_UNKNOWN)
    with pytest.raises(NodeUnavailableError, match="could not count the GPUs"):
        inspect(fake)
    assert fake.shutdowns == 1


def test_real_pynvml_without_a_driver_raises_node_unavailable() -> None:
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError:
        pass
    else:  # pragma: no cover - only on a machine with a working driver
        pynvml.nvmlShutdown()
        pytest.skip("this machine has a working NVIDIA driver")
    with pytest.raises(NodeUnavailableError, match=r"^NVML is unavailable: "):
        inspect()


def test_missing_pynvml_raises_node_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # makes `import pynvml` fail
    with pytest.raises(NodeUnavailableError, match=r"pip install 'gpupool\[node\]'"):
        inspect()


def test_no_gpus_is_an_empty_report() -> None:
    report = inspect(FakeNVML([]))
    assert report.to_json()["gpus"] == [] and report.faults == ()
    assert format_text(report).startswith("Node gpu-node-01: 0 GPU(s), driver 550.54.15")


def test_text_report_shows_instances_and_faults() -> None:
    hot = FakeGpu(temperature=95, slowdown=87, ecc={(0, 0): 0, (1, 0): 1, (0, 1): 0, (1, 1): 1})
    text = format_text(inspect(FakeNVML([mig_a100(), hot])))
    assert text.endswith("\n")
    assert "GPU 0  NVIDIA A100-SXM4-80GB  GPU-5b3c7a52" in text
    assert "MIG          enabled, 3 GPU instance(s)" in text
    assert "    GI 1  3g.40gb  40192 MiB" in text
    assert "      CI 1  1c.2g.20gb  MIG-bbbb2222-0000-0000-0000-000000000003" in text
    assert "temperature  95 C (slowdown 87 C, shutdown 92 C)" in text
    assert "power        63.2 W of 400.0 W limit" in text
    assert "Faults: 2" in text
    assert "  ! GPU 1 ecc: " in text and "  ! GPU 1 overheat: " in text


def test_importing_gpupool_nodes_does_not_import_pynvml() -> None:
    code = textwrap.dedent(
        """
        import sys
        import gpupool.nodes
        import gpupool.nodes.nvml
        assert "pynvml" not in sys.modules, "gpupool.nodes imported pynvml at import time"
        print("ok")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_newer_temperature_call_is_preferred_when_the_binding_has_it() -> None:
    fake = FakeNVML([FakeGpu(temperature=41)])
    fake.nvmlDeviceGetTemperatureV = lambda handle, sensor: 77  # type: ignore[attr-defined]
    assert inspect(fake).gpus[0].temperature_c == 77
    older = FakeNVML([FakeGpu(temperature=41)])
    older.nvmlDeviceGetTemperatureV = lambda handle, sensor: FakeNVML._fail(  # type: ignore[attr-defined]
        pynvml.NVML_ERROR_FUNCTION_NOT_FOUND
    )
    assert inspect(older).gpus[0].temperature_c == 41


def test_node_name_comes_from_the_downward_api(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a DaemonSet the hostname is the pod's; NODE_NAME names the node drift matches on."""
    monkeypatch.setenv("NODE_NAME", "ip-10-0-1-2.ec2.internal")
    assert inspect(FakeNVML([t4()])).to_json()["node_name"] == "ip-10-0-1-2.ec2.internal"
    monkeypatch.delenv("NODE_NAME")
    doc = inspect(FakeNVML([t4()])).to_json()
    assert doc["node_name"] == doc["hostname"]


def test_only_the_nvml_module_imports_pynvml() -> None:
    """pynvml is an outside system: one module of gpupool talks to it."""
    package = PACKAGE
    importers = set()
    for path in package.rglob("*.py"):
        for stmt in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(stmt, ast.Import):
                names = [alias.name for alias in stmt.names]
            elif isinstance(stmt, ast.ImportFrom) and stmt.module:
                names = [stmt.module]
            if any(name.split(".")[0] == "pynvml" for name in names):
                importers.add(path.relative_to(package.parent).as_posix())
    assert importers == {"gpupool/nodes/nvml.py"}


# --------------------------------------------------------------------------- from_json

HOT_ECC = {(0, 0): 0, (1, 0): 1, (0, 1): 0, (1, 1): 1}

#: Every kind of node the stand-in can be, for reading reports back.
SCENARIOS: dict[str, Any] = {
    "mig": lambda: [mig_a100()],
    "mig-unprivileged": lambda: [mig_a100(gi_by_id_error=pynvml.NVML_ERROR_NO_PERMISSION)],
    "mig-pending": lambda: [FakeGpu(mig=(0, 1))],
    "no-mig": lambda: [t4()],
    "ecc": lambda: [FakeGpu(), FakeGpu(ecc={(0, 0): 12, (1, 0): 2, (0, 1): 40, (1, 1): 5})],
    "overheat": lambda: [FakeGpu(temperature=87), FakeGpu(temperature=86, slowdown=None)],
    "unsupported": lambda: [
        t4(
            capability=NOT_SUPPORTED,
            ecc_mode=NOT_SUPPORTED,
            ecc={},
            slowdown=None,
            shutdown=None,
            power_mw=None,
            limit_mw=None,
            persistence=None,
        )
    ],
    "lost": lambda: [FakeGpu(lost=True), t4()],
    "empty": lambda: [],
    "mixed-faults": lambda: [mig_a100(), FakeGpu(temperature=95, ecc=HOT_ECC)],
}


@pytest.mark.parametrize("node_name", [None, "ip-10-0-1-2.ec2.internal"])
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_report_reads_back_from_its_json(
    scenario: str, node_name: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """from_json(to_json(r)) == r, through a real JSON text, for every kind of node."""
    if node_name is None:
        monkeypatch.delenv("NODE_NAME", raising=False)
    else:
        monkeypatch.setenv("NODE_NAME", node_name)
    report = inspect(FakeNVML(SCENARIOS[scenario]()))
    doc = report.to_json()
    back = NodeReport.from_json(json.loads(json.dumps(doc, indent=2, sort_keys=True)))
    assert back == report
    assert back.to_json() == doc
    assert format_text(back) == format_text(report)


def _doc(**changes: Any) -> dict[str, Any]:
    """A node report document (one MIG A100, one faulty T4) with top-level keys changed."""
    doc = inspect(FakeNVML([mig_a100(), t4(temperature=99)])).to_json()
    doc.update(changes)
    return doc


def test_report_from_before_node_name_reads_with_the_hostname() -> None:
    """Reports written before the DaemonSet have no node_name; the hostname names the node."""
    doc = _doc()
    del doc["node_name"]
    report = NodeReport.from_json(doc)
    assert report.node_name == "gpu-node-01"
    assert report.to_json() == _doc()


def test_report_keys_a_later_gpupool_adds_are_ignored_and_fault_kinds_kept() -> None:
    """Added fields keep the format version; a fault this gpupool does not know still counts."""
    doc = _doc(uptime_s=12)
    doc["gpus"][0]["clocks"] = {"sm_mhz": 1410}
    doc["faults"].append({"gpu": 0, "kind": "xid", "detail": "Xid 79: GPU has fallen off the bus"})
    report = NodeReport.from_json(doc)
    assert [(f.gpu, f.kind) for f in report.faults] == [(1, "overheat"), (0, "xid")]


NODE_LISTS = sorted((FIXTURES / "nodes").glob("*.json"))


@pytest.mark.parametrize("fixture", NODE_LISTS, ids=lambda path: path.stem)
def test_kubernetes_node_lists_are_not_node_reports(fixture: Path) -> None:
    """The NodeList fixtures are what the API server says, not what NVML says: rejected."""
    data = json.loads(fixture.read_text(encoding="utf-8"))
    with pytest.raises(InputError, match=r"^not a gpupool node report: it has no 'hostname'$"):
        NodeReport.from_json(data)


def _set(path: str, value: Any) -> Any:
    """A document with the value at a dotted path (``gpus.0.mig.current``) replaced or removed."""

    def build() -> dict[str, Any]:
        doc = _doc()
        *parents, last = path.split(".")
        target: Any = doc
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        if value is _MISSING:
            del target[last]
        elif isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value
        return doc

    return build


_MISSING = object()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: [], "not a gpupool node report: the document is a list, not a JSON object"),
        (lambda: "report", "not a gpupool node report: the document is the string 'report'"),
        (lambda: {}, "not a gpupool node report: it has no 'hostname'"),
        (
            lambda: {"format_version": "1", "stack": "s", "drifted": False, "items": []},
            "not a gpupool node report: it has no 'hostname'",
        ),
        (_set("gpus", _MISSING), "not a gpupool node report: it has no 'gpus'"),
        (_set("format_version", _MISSING), "not a gpupool node report: it has no 'format_version'"),
        (_set("format_version", "2"), "node report format_version '2' is not one this gpupool"),
        (_set("format_version", 1), "node report format_version 1 is not one this gpupool"),
        (_set("hostname", ""), "hostname must be a non-empty string"),
        (_set("hostname", 7), "hostname must be a string, not the number 7"),
        (_set("node_name", None), "node_name must be a string, not null"),
        (_set("driver_version", 550), "driver_version must be a string, not the number 550"),
        (_set("gpus", {"0": {}}), "gpus must be a list, not an object"),
        (_set("faults", _MISSING), "faults is missing"),
        (_set("gpus.1", "T4"), "gpus[1] must be an object, not the string 'T4'"),
        (_set("gpus.0.index", "0"), "gpus[0].index must be an integer, not the string '0'"),
        (_set("gpus.0.index", True), "gpus[0].index must be an integer, not true"),
        (_set("gpus.0.index", None), "gpus[0].index must be an integer, not null"),
        (_set("gpus.0.memory.total_mib", 80.5), "gpus[0].memory.total_mib must be an integer"),
        (_set("gpus.0.memory", _MISSING), "gpus[0].memory is missing"),
        (
            _set("gpus.0.mig.current", "on"),
            "gpus[0].mig.current must be \"enabled\", \"disabled\" or null, not the string 'on'",
        ),
        (_set("gpus.0.mig.supported", "yes"), "gpus[0].mig.supported must be true, false or null"),
        (
            _set("gpus.0.mig.gpu_instances.0.compute_instances", None),
            "gpus[0].mig.gpu_instances[0].compute_instances must be a list, not null",
        ),
        (
            _set("gpus.0.mig.gpu_instances.1.compute_instances.0.uuid", ["MIG-1"]),
            "gpus[0].mig.gpu_instances[1].compute_instances[0].uuid must be a string, not a list",
        ),
        (_set("gpus.1.ecc.volatile", _MISSING), "gpus[1].ecc.volatile is missing"),
        (_set("gpus.1.ecc.aggregate.uncorrected", "5"), "gpus[1].ecc.aggregate.uncorrected"),
        (_set("gpus.1.temperature.gpu_c", 99.5), "gpus[1].temperature.gpu_c must be an integer"),
        (_set("gpus.1.power.draw_w", "27 W"), "gpus[1].power.draw_w must be a finite number"),
        (_set("gpus.1.power.draw_w", float("nan")), "gpus[1].power.draw_w must be a finite"),
        (_set("gpus.1.power.limit_w", 10**400), "gpus[1].power.limit_w must be a finite number"),
        (_set("gpus.1.persistence_mode", 1), "gpus[1].persistence_mode must be \"enabled\""),
        (_set("faults.0.kind", None), "faults[0].kind must be a string, not null"),
        (_set("faults.0.gpu", "1"), "faults[0].gpu must be an integer, not the string '1'"),
        (_set("faults.0.detail", _MISSING), "faults[0].detail is missing"),
    ],
)
def test_documents_that_are_not_node_reports_are_rejected_clearly(make: Any, message: str) -> None:
    """One InputError naming the key at fault; never a KeyError or TypeError."""
    with pytest.raises(InputError) as caught:
        NodeReport.from_json(make())
    text = str(caught.value)
    assert message in text
    assert "\n" not in text
    if "format_version" not in message:
        assert text.startswith("not a gpupool node report: ")


def test_good_numbers_read_as_the_report_writes_them() -> None:
    """Whole watts may be written as integers; they read back as floats."""
    doc = _doc()
    doc["gpus"][1]["power"] = {"draw_w": 27, "limit_w": 70.0}
    gpu = NodeReport.from_json(doc).gpus[1]
    assert (gpu.power_draw_w, gpu.power_limit_w) == (27.0, 70.0)
    assert isinstance(gpu.power_draw_w, float)
