"""NVML, read only: the one place gpupool talks to the NVIDIA driver.

Owns: the only import of ``pynvml`` in gpupool (package ``nvidia-ml-py``, imported lazily inside
:func:`read` so ``import gpupool.nodes`` stays cheap and works without it), starting and stopping
NVML, and the walk over the local GPUs and their MIG instances into plain data: the driver, CUDA
and NVML versions and one :class:`~gpupool.nodes.report.GpuReport` per GPU, in the report's
units (MiB, watts, ``"enabled"``/``"disabled"``) and with MIG profiles named as NVML names them
(or, where NVML will not say to an unprivileged user, as NVIDIA's go-nvlib derives them).

Does not own: the hostname and node name, the faults (``gpupool.nodes.inventory`` and
``gpupool.nodes.faults``), or the report's JSON (``gpupool.nodes.report``). Nothing here
changes a GPU: no MIG mode, clock, power limit, persistence or ECC setting is ever written.

Every per-GPU NVML call that can fail (``NVMLError_NotSupported`` on a GPU without the
feature, ``NVMLError_NoPermission`` for an unprivileged user, a function an older driver
lacks) degrades to ``None`` for that one field. Only a machine where NVML cannot start at all
raises :class:`NodeUnavailableError`.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpupool.errors import GpupoolError
from gpupool.nodes.report import ComputeInstance, EccCounts, GpuInstance, GpuReport, MigState

_MIB = 1024 * 1024
_GIB = 1024 * _MIB


class NodeUnavailableError(GpupoolError):
    """NVML cannot be used on this machine: no ``pynvml``, no driver, or no access to it."""


@dataclass(frozen=True)
class NvmlReading:
    """What NVML says about this machine: driver versions and every GPU, in index order."""

    driver_version: str | None
    cuda_driver_version: str | None
    nvml_version: str | None
    gpus: tuple[GpuReport, ...]


def read(nvml: Any | None = None) -> NvmlReading:
    """Read this machine's GPUs through NVML, without changing anything.

    Args:
        nvml: An object with the ``pynvml`` module's functions, constants and ``NVMLError``
            classes; tests pass a stand-in. ``None`` imports the real ``pynvml``.

    Returns:
        The reading.

    Raises:
        NodeUnavailableError: ``pynvml`` is not installed, or NVML cannot start (no driver,
            no permission) or cannot count the GPUs.

    """
    lib = nvml if nvml is not None else _import_pynvml()
    try:
        lib.nvmlInit()
    except lib.NVMLError as exc:
        raise NodeUnavailableError(_init_failure(lib, exc)) from exc
    try:
        return _read_system(lib)
    finally:
        with contextlib.suppress(lib.NVMLError):
            lib.nvmlShutdown()


def _import_pynvml() -> Any:
    try:
        # The one import of NVML in gpupool, deferred so the module loads without it.
        import pynvml
    except ImportError as exc:
        raise NodeUnavailableError(
            "NVML bindings are not installed: run pip install 'gpupool[node]' "
            "(it brings nvidia-ml-py)."
        ) from exc
    return pynvml


def _init_failure(lib: Any, exc: Exception) -> str:
    def kind(name: str) -> bool:
        cls = getattr(lib, name, None)
        return isinstance(cls, type) and isinstance(exc, cls)

    if kind("NVMLError_LibraryNotFound"):
        return (
            "NVML is unavailable: libnvidia-ml.so.1 was not found, so no NVIDIA driver is "
            "installed on this machine (or it is not on the library path)."
        )
    if kind("NVMLError_DriverNotLoaded"):
        return "NVML is unavailable: the NVIDIA kernel driver is not loaded on this machine."
    if kind("NVMLError_NoPermission"):
        return (
            "NVML is unavailable: permission denied opening the GPU devices; run as a user "
            "that can read /dev/nvidia*."
        )
    if kind("NVMLError_LibRmVersionMismatch"):
        return (
            "NVML is unavailable: the NVIDIA driver library and kernel module versions differ; "
            "reload the driver or reboot."
        )
    return f"NVML is unavailable: nvmlInit failed ({exc})."


def _read_system(lib: Any) -> NvmlReading:
    try:
        count = int(lib.nvmlDeviceGetCount())
    except lib.NVMLError as exc:
        raise NodeUnavailableError(f"NVML started but could not count the GPUs ({exc}).") from exc
    cuda = _call(lib, "nvmlSystemGetCudaDriverVersion")
    return NvmlReading(
        driver_version=_text(_call(lib, "nvmlSystemGetDriverVersion")),
        cuda_driver_version=_cuda_version(cuda),
        nvml_version=_text(_call(lib, "nvmlSystemGetNVMLVersion")),
        gpus=tuple(_read_gpu(lib, index) for index in range(count)),
    )


def _read_gpu(lib: Any, index: int) -> GpuReport:
    try:
        handle = lib.nvmlDeviceGetHandleByIndex(index)
    except lib.NVMLError as exc:
        return GpuReport(index=index, error=str(exc))

    memory = _call(lib, "nvmlDeviceGetMemoryInfo", handle)
    total_bytes = _int_attr(memory, "total")
    capability = _call(lib, "nvmlDeviceGetCudaComputeCapability", handle)
    ecc_mode = _call(lib, "nvmlDeviceGetEccMode", handle)
    power_draw = _call(lib, "nvmlDeviceGetPowerUsage", handle)
    power_limit = _call(lib, "nvmlDeviceGetEnforcedPowerLimit", handle)
    return GpuReport(
        index=index,
        uuid=_text(_call(lib, "nvmlDeviceGetUUID", handle)),
        name=_text(_call(lib, "nvmlDeviceGetName", handle)),
        memory_total_mib=_mib(total_bytes),
        memory_used_mib=_mib(_int_attr(memory, "used")),
        compute_capability=(f"{capability[0]}.{capability[1]}" if capability is not None else None),
        mig=_read_mig(lib, handle, total_bytes),
        ecc_mode=_enabled(lib, ecc_mode[0]) if ecc_mode is not None else None,
        ecc_volatile=_read_ecc(lib, handle, lib.NVML_VOLATILE_ECC),
        ecc_aggregate=_read_ecc(lib, handle, lib.NVML_AGGREGATE_ECC),
        temperature_c=_temperature(lib, handle),
        slowdown_c=_call(
            lib,
            "nvmlDeviceGetTemperatureThreshold",
            handle,
            lib.NVML_TEMPERATURE_THRESHOLD_SLOWDOWN,
        ),
        shutdown_c=_call(
            lib,
            "nvmlDeviceGetTemperatureThreshold",
            handle,
            lib.NVML_TEMPERATURE_THRESHOLD_SHUTDOWN,
        ),
        power_draw_w=_watts(power_draw),
        power_limit_w=_watts(power_limit),
        persistence_mode=_enabled(lib, _call(lib, "nvmlDeviceGetPersistenceMode", handle)),
    )


def _temperature(lib: Any, handle: Any) -> int | None:
    # nvmlDeviceGetTemperatureV is the newer call (recent drivers); the older one is deprecated
    # but is what most drivers in the field answer.
    for name in ("nvmlDeviceGetTemperatureV", "nvmlDeviceGetTemperature"):
        value = _call(lib, name, handle, lib.NVML_TEMPERATURE_GPU)
        if value is not None:
            return int(value)
    return None


def _read_ecc(lib: Any, handle: Any, counter: int) -> EccCounts:
    def count(error_type: int) -> int | None:
        value = _call(lib, "nvmlDeviceGetTotalEccErrors", handle, error_type, counter)
        return int(value) if value is not None else None

    return EccCounts(
        corrected=count(lib.NVML_MEMORY_ERROR_TYPE_CORRECTED),
        uncorrected=count(lib.NVML_MEMORY_ERROR_TYPE_UNCORRECTED),
    )


def _read_mig(lib: Any, handle: Any, parent_total_bytes: int | None) -> MigState:
    not_supported = getattr(lib, "NVMLError_NotSupported", None)
    try:
        current, pending = lib.nvmlDeviceGetMigMode(handle)
    except AttributeError:
        return MigState(None, None, None, ())
    except lib.NVMLError as exc:
        if isinstance(not_supported, type) and isinstance(exc, not_supported):
            return MigState(False, None, None, ())
        return MigState(None, None, None, ())
    enabled = lib.NVML_DEVICE_MIG_ENABLE
    current_text = "enabled" if current == enabled else "disabled"
    pending_text = "enabled" if pending == enabled else "disabled"
    if current != enabled:
        return MigState(True, current_text, pending_text, ())
    return MigState(
        True, current_text, pending_text, _read_mig_devices(lib, handle, parent_total_bytes)
    )


def _read_mig_devices(
    lib: Any, handle: Any, parent_total_bytes: int | None
) -> tuple[GpuInstance, ...]:
    """Walk the MIG devices with the calls an unprivileged user may make, grouped by GI."""
    slots = _call(lib, "nvmlDeviceGetMaxMigDeviceCount", handle) or 0
    profile_names = _ProfileNames(lib, handle)
    groups: dict[int | None, list[tuple[ComputeInstance, Any]]] = {}
    for slot in range(int(slots)):
        try:
            mig = lib.nvmlDeviceGetMigDeviceHandleByIndex(handle, slot)
        except lib.NVMLError:
            continue  # NVMLError_NotFound: this slot holds no MIG device
        gi_id = _call(lib, "nvmlDeviceGetGpuInstanceId", mig)
        attrs = _call(lib, "nvmlDeviceGetAttributes", mig)
        memory = _call(lib, "nvmlDeviceGetMemoryInfo", mig)
        gi_profile = profile_names.for_gpu_instance(gi_id) or _derived_profile(
            attrs, parent_total_bytes
        )
        ci = ComputeInstance(
            id=_call(lib, "nvmlDeviceGetComputeInstanceId", mig),
            profile=_ci_profile(gi_profile, attrs),
            uuid=_text(_call(lib, "nvmlDeviceGetUUID", mig)),
            memory_total_mib=_mib(_int_attr(memory, "total")),
            memory_used_mib=_mib(_int_attr(memory, "used")),
            multiprocessors=_int_attr(attrs, "multiprocessorCount"),
        )
        groups.setdefault(gi_id, []).append((ci, attrs))

    instances = []
    for gi_id, members in groups.items():
        first_attrs = members[0][1]
        gi_profile = profile_names.for_gpu_instance(gi_id) or _derived_profile(
            first_attrs, parent_total_bytes
        )
        instances.append(
            GpuInstance(
                id=gi_id,
                profile=gi_profile,
                memory_mib=profile_names.memory_mib(gi_id)
                or _int_attr(first_attrs, "memorySizeMB"),
                slices=_int_attr(first_attrs, "gpuInstanceSliceCount"),
                compute_instances=tuple(
                    sorted((ci for ci, _ in members), key=lambda ci: _sort_key(ci.id))
                ),
            )
        )
    return tuple(sorted(instances, key=lambda gi: _sort_key(gi.id)))


class _ProfileNames:
    """GPU-instance profile names ("1g.10gb") as NVML itself names them.

    Needs ``nvmlDeviceGetGpuInstanceById``, which NVML may refuse to an unprivileged user;
    callers then fall back to :func:`_derived_profile`.
    """

    def __init__(self, lib: Any, handle: Any) -> None:
        self._lib = lib
        self._handle = handle
        self._by_profile_id: dict[int, tuple[str | None, int | None]] | None = None
        self._profile_of_gi: dict[int | None, int | None] = {}

    def for_gpu_instance(self, gi_id: int | None) -> str | None:
        entry = self._entry(gi_id)
        return entry[0] if entry else None

    def memory_mib(self, gi_id: int | None) -> int | None:
        entry = self._entry(gi_id)
        return entry[1] if entry else None

    def _entry(self, gi_id: int | None) -> tuple[str | None, int | None] | None:
        if gi_id is None:
            return None
        if gi_id not in self._profile_of_gi:
            self._profile_of_gi[gi_id] = self._profile_id(gi_id)
        profile_id = self._profile_of_gi[gi_id]
        if profile_id is None:
            return None
        return self._table().get(profile_id)

    def _profile_id(self, gi_id: int) -> int | None:
        gi = _call(self._lib, "nvmlDeviceGetGpuInstanceById", self._handle, gi_id)
        if gi is None:
            return None
        info = _call(self._lib, "nvmlGpuInstanceGetInfo", gi)
        return _int_attr(info, "profileId")

    def _table(self) -> dict[int, tuple[str | None, int | None]]:
        if self._by_profile_id is None:
            self._by_profile_id = {}
            for profile in range(int(getattr(self._lib, "NVML_GPU_INSTANCE_PROFILE_COUNT", 0))):
                info = _call(
                    self._lib, "nvmlDeviceGetGpuInstanceProfileInfo", self._handle, profile
                )
                profile_id = _int_attr(info, "id")
                if profile_id is None:
                    continue
                name = _text(getattr(info, "name", None)) or None
                if name is not None and name.startswith("MIG "):
                    name = name[len("MIG ") :]
                self._by_profile_id[profile_id] = (name, _int_attr(info, "memorySizeMB"))
        return self._by_profile_id


def _derived_profile(attrs: Any, parent_total_bytes: int | None) -> str | None:
    """Name a GPU-instance profile from a MIG device's attributes.

    The same rule NVIDIA's go-nvlib uses (``getMigMemorySizeGB``): the memory fraction is
    rounded up to eighths of the parent GPU, then scaled by its size in whole GiB.
    """
    slices = _int_attr(attrs, "gpuInstanceSliceCount")
    memory_mb = _int_attr(attrs, "memorySizeMB")
    if not slices or not memory_mb or not parent_total_bytes:
        return None
    fraction = math.ceil(memory_mb * _MIB / parent_total_bytes * 8) / 8
    total_gb = (parent_total_bytes + _GIB - 1) // _GIB
    return f"{slices}g.{math.floor(fraction * total_gb + 0.5)}gb"


def _ci_profile(gi_profile: str | None, attrs: Any) -> str | None:
    if gi_profile is None:
        return None
    gi_slices = _int_attr(attrs, "gpuInstanceSliceCount")
    ci_slices = _int_attr(attrs, "computeInstanceSliceCount")
    if gi_slices is None or ci_slices is None or gi_slices == ci_slices:
        return gi_profile
    return f"{ci_slices}c.{gi_profile}"


# --------------------------------------------------------------------------- helpers


def _call(lib: Any, name: str, *args: Any) -> Any:
    """Call ``lib.<name>(*args)``; ``None`` when the function is missing or NVML refuses."""
    fn: Callable[..., Any] | None = getattr(lib, name, None)
    if fn is None:
        return None
    try:
        return fn(*args)
    except lib.NVMLError:
        return None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace").rstrip("\x00")
    return str(value)


def _int_attr(obj: Any, name: str) -> int | None:
    value = getattr(obj, name, None) if obj is not None else None
    return int(value) if value is not None else None


def _mib(value: int | None) -> int | None:
    return value // _MIB if value is not None else None


def _watts(milliwatts: Any) -> float | None:
    return round(int(milliwatts) / 1000, 1) if milliwatts is not None else None


def _enabled(lib: Any, state: Any) -> str | None:
    if state is None:
        return None
    return "enabled" if state == lib.NVML_FEATURE_ENABLED else "disabled"


def _cuda_version(value: Any) -> str | None:
    if value is None:
        return None
    number = int(value)
    return f"{number // 1000}.{(number % 1000) // 10}"


def _sort_key(value: int | None) -> tuple[int, int]:
    return (1, 0) if value is None else (0, value)
