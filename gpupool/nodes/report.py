"""The node report: what ``gpupool node inspect`` found on one node, as data and as JSON.

Owns: the frozen dataclasses of the report (the node, each GPU, its MIG instances, its ECC
counters, the faults found), their JSON shape (``to_json``, carrying
``gpupool.formats.FORMAT_VERSION``) and the way back from JSON (``NodeReport.from_json``), which
checks a document before trusting it: ``gpupool drift --node-reports`` reads files that were
copied from many machines.

Does not own: reading NVML (``gpupool.nodes.nvml``), deciding what is a fault
(``gpupool.nodes.faults``) or the text for people (``gpupool.nodes.text``).

The JSON shape, format 1::

    {"format_version": "1", "hostname": str, "node_name": str,
     "driver_version", "cuda_driver_version", "nvml_version": str | null,
     "gpus": [{"index": int, "uuid", "name", "compute_capability": str | null,
               "memory": {"total_mib", "used_mib": int | null},
               "mig": {"supported": bool | null, "current", "pending": STATE,
                       "gpu_instances": [{"id", "memory_mib", "slices": int | null,
                                          "profile": str | null,
                                          "compute_instances": [{"id", "memory_total_mib",
                                              "memory_used_mib", "multiprocessors": int | null,
                                              "profile", "uuid": str | null}]}]},
               "ecc": {"mode": STATE, "volatile", "aggregate":
                       {"corrected", "uncorrected": int | null}},
               "temperature": {"gpu_c", "slowdown_c", "shutdown_c": int | null},
               "power": {"draw_w", "limit_w": number | null},
               "persistence_mode": STATE, "error": str | null}],
     "faults": [{"gpu": int, "kind": str, "detail": str}]}

where STATE is ``"enabled"``, ``"disabled"`` or null. ``node_name`` came with the DaemonSet
(reports written before it lack the key; the hostname stands in). Keys a later gpupool adds are
ignored, as the format promises.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from gpupool.errors import InputError
from gpupool.formats import FORMAT_VERSION

_STATES = ("enabled", "disabled")


@dataclass(frozen=True)
class EccCounts:
    """ECC error counts of one counter type (volatile or aggregate); ``None`` = unknown."""

    corrected: int | None
    uncorrected: int | None

    def to_json(self) -> dict[str, int | None]:
        """Return the JSON shape."""
        return {"corrected": self.corrected, "uncorrected": self.uncorrected}


@dataclass(frozen=True)
class ComputeInstance:
    """One MIG device: a compute instance inside a GPU instance."""

    id: int | None
    profile: str | None
    uuid: str | None
    memory_total_mib: int | None
    memory_used_mib: int | None
    multiprocessors: int | None

    def to_json(self) -> dict[str, Any]:
        """Return the JSON shape."""
        return {
            "id": self.id,
            "profile": self.profile,
            "uuid": self.uuid,
            "memory_total_mib": self.memory_total_mib,
            "memory_used_mib": self.memory_used_mib,
            "multiprocessors": self.multiprocessors,
        }


@dataclass(frozen=True)
class GpuInstance:
    """One MIG GPU instance (a memory + compute partition) and its compute instances."""

    id: int | None
    profile: str | None
    memory_mib: int | None
    slices: int | None
    compute_instances: tuple[ComputeInstance, ...]

    def to_json(self) -> dict[str, Any]:
        """Return the JSON shape."""
        return {
            "id": self.id,
            "profile": self.profile,
            "memory_mib": self.memory_mib,
            "slices": self.slices,
            "compute_instances": [ci.to_json() for ci in self.compute_instances],
        }


@dataclass(frozen=True)
class MigState:
    """MIG mode of one GPU.

    ``supported`` is False on a GPU without MIG (T4, L4, A10G ...), None when NVML would not
    say. ``current`` and ``pending`` are ``"enabled"``/``"disabled"``; they differ after a mode
    change that still waits for a GPU reset.
    """

    supported: bool | None
    current: str | None
    pending: str | None
    gpu_instances: tuple[GpuInstance, ...]

    def to_json(self) -> dict[str, Any]:
        """Return the JSON shape."""
        return {
            "supported": self.supported,
            "current": self.current,
            "pending": self.pending,
            "gpu_instances": [gi.to_json() for gi in self.gpu_instances],
        }


@dataclass(frozen=True)
class GpuReport:
    """Everything read about one physical GPU; ``None`` fields were not available."""

    index: int
    uuid: str | None = None
    name: str | None = None
    memory_total_mib: int | None = None
    memory_used_mib: int | None = None
    compute_capability: str | None = None
    mig: MigState = MigState(None, None, None, ())
    ecc_mode: str | None = None
    ecc_volatile: EccCounts = EccCounts(None, None)
    ecc_aggregate: EccCounts = EccCounts(None, None)
    temperature_c: int | None = None
    slowdown_c: int | None = None
    shutdown_c: int | None = None
    power_draw_w: float | None = None
    power_limit_w: float | None = None
    persistence_mode: str | None = None
    error: str | None = None
    """Set when NVML could not open the GPU at all (for example "GPU is lost")."""

    def to_json(self) -> dict[str, Any]:
        """Return the JSON shape."""
        return {
            "index": self.index,
            "uuid": self.uuid,
            "name": self.name,
            "memory": {"total_mib": self.memory_total_mib, "used_mib": self.memory_used_mib},
            "compute_capability": self.compute_capability,
            "mig": self.mig.to_json(),
            "ecc": {
                "mode": self.ecc_mode,
                "volatile": self.ecc_volatile.to_json(),
                "aggregate": self.ecc_aggregate.to_json(),
            },
            "temperature": {
                "gpu_c": self.temperature_c,
                "slowdown_c": self.slowdown_c,
                "shutdown_c": self.shutdown_c,
            },
            "power": {"draw_w": self.power_draw_w, "limit_w": self.power_limit_w},
            "persistence_mode": self.persistence_mode,
            "error": self.error,
        }


@dataclass(frozen=True)
class Fault:
    """A condition on one GPU that needs an operator: ``ecc``, ``overheat`` or ``unreachable``."""

    gpu: int
    kind: str
    detail: str

    def to_json(self) -> dict[str, Any]:
        """Return the JSON shape."""
        return {"gpu": self.gpu, "kind": self.kind, "detail": self.detail}


@dataclass(frozen=True)
class NodeReport:
    """The inventory of one node's GPUs at one moment, with the faults found then."""

    hostname: str
    #: The Kubernetes node name (``NODE_NAME`` from the downward API when run as a DaemonSet or
    #: Job, where the hostname is the pod's); the hostname otherwise.
    node_name: str
    driver_version: str | None
    cuda_driver_version: str | None
    nvml_version: str | None
    gpus: tuple[GpuReport, ...]
    #: Faults found on the GPUs, in GPU order, as judged on the node when it was read.
    faults: tuple[Fault, ...]

    def to_json(self) -> dict[str, Any]:
        """Return the stable JSON shape (``format_version`` ``gpupool.formats.FORMAT_VERSION``)."""
        return {
            "format_version": FORMAT_VERSION,
            "hostname": self.hostname,
            "node_name": self.node_name or self.hostname,
            "driver_version": self.driver_version,
            "cuda_driver_version": self.cuda_driver_version,
            "nvml_version": self.nvml_version,
            "gpus": [gpu.to_json() for gpu in self.gpus],
            "faults": [fault.to_json() for fault in self.faults],
        }

    @classmethod
    def from_json(cls, data: object) -> NodeReport:
        """Check a decoded JSON document and rebuild the report it holds.

        ``NodeReport.from_json(report.to_json()) == report`` for every report.

        Args:
            data: The document as ``json.loads`` returns it.

        Returns:
            The report.

        Raises:
            InputError: the document is not a node report (not an object, no ``hostname`` or
                ``gpus``), has another ``format_version``, or a value of the wrong type; the
                message names the offending key, as in ``gpus[1].mig.current``.

        """
        if not isinstance(data, dict):
            raise _not_a_report(f"the document is {_kind(data)}, not a JSON object")
        for key in ("hostname", "gpus"):
            if key not in data:
                raise _not_a_report(f"it has no '{key}'")
        if "format_version" not in data:
            raise _not_a_report("it has no 'format_version'")
        version = data["format_version"]
        if version != FORMAT_VERSION:
            raise InputError(
                f"node report format_version {version!r} is not one this gpupool reads "
                f"({FORMAT_VERSION!r}); inspect the nodes with the gpupool version that runs drift"
            )
        doc = _Object(data, "")
        hostname = doc.text("hostname")
        if not hostname:
            raise _not_a_report("hostname must be a non-empty string")
        node_name = doc.text("node_name") if "node_name" in data else None
        return cls(
            hostname=hostname,
            node_name=node_name or hostname,
            driver_version=doc.text_or_null("driver_version"),
            cuda_driver_version=doc.text_or_null("cuda_driver_version"),
            nvml_version=doc.text_or_null("nvml_version"),
            gpus=tuple(_gpu(gpu) for gpu in doc.children("gpus")),
            faults=tuple(_fault(fault) for fault in doc.children("faults")),
        )


# --------------------------------------------------------------------------- reading JSON


def _gpu(doc: _Object) -> GpuReport:
    memory = doc.child("memory")
    ecc = doc.child("ecc")
    temperature = doc.child("temperature")
    power = doc.child("power")
    return GpuReport(
        index=doc.integer("index"),
        uuid=doc.text_or_null("uuid"),
        name=doc.text_or_null("name"),
        memory_total_mib=memory.integer_or_null("total_mib"),
        memory_used_mib=memory.integer_or_null("used_mib"),
        compute_capability=doc.text_or_null("compute_capability"),
        mig=_mig(doc.child("mig")),
        ecc_mode=ecc.state_or_null("mode"),
        ecc_volatile=_ecc(ecc.child("volatile")),
        ecc_aggregate=_ecc(ecc.child("aggregate")),
        temperature_c=temperature.integer_or_null("gpu_c"),
        slowdown_c=temperature.integer_or_null("slowdown_c"),
        shutdown_c=temperature.integer_or_null("shutdown_c"),
        power_draw_w=power.number_or_null("draw_w"),
        power_limit_w=power.number_or_null("limit_w"),
        persistence_mode=doc.state_or_null("persistence_mode"),
        error=doc.text_or_null("error"),
    )


def _mig(doc: _Object) -> MigState:
    return MigState(
        supported=doc.flag_or_null("supported"),
        current=doc.state_or_null("current"),
        pending=doc.state_or_null("pending"),
        gpu_instances=tuple(_gpu_instance(gi) for gi in doc.children("gpu_instances")),
    )


def _gpu_instance(doc: _Object) -> GpuInstance:
    return GpuInstance(
        id=doc.integer_or_null("id"),
        profile=doc.text_or_null("profile"),
        memory_mib=doc.integer_or_null("memory_mib"),
        slices=doc.integer_or_null("slices"),
        compute_instances=tuple(_compute_instance(ci) for ci in doc.children("compute_instances")),
    )


def _compute_instance(doc: _Object) -> ComputeInstance:
    return ComputeInstance(
        id=doc.integer_or_null("id"),
        profile=doc.text_or_null("profile"),
        uuid=doc.text_or_null("uuid"),
        memory_total_mib=doc.integer_or_null("memory_total_mib"),
        memory_used_mib=doc.integer_or_null("memory_used_mib"),
        multiprocessors=doc.integer_or_null("multiprocessors"),
    )


def _ecc(doc: _Object) -> EccCounts:
    return EccCounts(
        corrected=doc.integer_or_null("corrected"),
        uncorrected=doc.integer_or_null("uncorrected"),
    )


def _fault(doc: _Object) -> Fault:
    # Any kind is kept: a newer gpupool on the node may know faults this one does not.
    return Fault(gpu=doc.integer("gpu"), kind=doc.text("kind"), detail=doc.text("detail"))


class _Object:
    """One JSON object of a node report being read, and where it sits, for error messages."""

    def __init__(self, data: object, path: str) -> None:
        if not isinstance(data, dict):
            raise _not_a_report(f"{path} must be an object, not {_kind(data)}")
        self._data: dict[str, Any] = data
        self._path = path

    def _where(self, key: str) -> str:
        return f"{self._path}.{key}" if self._path else key

    def _get(self, key: str) -> Any:
        if key not in self._data:
            raise _not_a_report(f"{self._where(key)} is missing")
        return self._data[key]

    def _wrong(self, key: str, wanted: str, value: object) -> InputError:
        return _not_a_report(f"{self._where(key)} must be {wanted}, not {_kind(value)}")

    def child(self, key: str) -> _Object:
        """Return the object under ``key``."""
        return _Object(self._get(key), self._where(key))

    def children(self, key: str) -> list[_Object]:
        """Return the list of objects under ``key``."""
        value = self._get(key)
        if not isinstance(value, list):
            raise self._wrong(key, "a list", value)
        return [_Object(item, f"{self._where(key)}[{i}]") for i, item in enumerate(value)]

    def text(self, key: str) -> str:
        """Return the string under ``key``."""
        value = self._get(key)
        if isinstance(value, str):
            return value
        raise self._wrong(key, "a string", value)

    def text_or_null(self, key: str) -> str | None:
        """Return the string under ``key``, or ``None``."""
        return None if self._get(key) is None else self.text(key)

    def integer(self, key: str) -> int:
        """Return the integer under ``key`` (``true`` and ``1.0`` are not integers)."""
        value = self._get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise self._wrong(key, "an integer", value)

    def integer_or_null(self, key: str) -> int | None:
        """Return the integer under ``key``, or ``None``."""
        return None if self._get(key) is None else self.integer(key)

    def number_or_null(self, key: str) -> float | None:
        """Return the finite number under ``key`` as a float, or ``None``."""
        value = self._get(key)
        if value is None:
            return None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                number = float(value)
            except OverflowError:  # an integer too large for a float
                number = math.inf
            if math.isfinite(number):
                return number
        raise self._wrong(key, "a finite number", value)

    def flag_or_null(self, key: str) -> bool | None:
        """Return the boolean under ``key``, or ``None``."""
        value = self._get(key)
        if value is None or isinstance(value, bool):
            return value
        raise self._wrong(key, "true, false or null", value)

    def state_or_null(self, key: str) -> str | None:
        """Return ``"enabled"``, ``"disabled"`` or ``None`` under ``key``."""
        value = self._get(key)
        if value is None:
            return None
        if isinstance(value, str) and value in _STATES:
            return value
        raise self._wrong(key, '"enabled", "disabled" or null', value)


def _not_a_report(detail: str) -> InputError:
    return InputError(f"not a gpupool node report: {detail}")


def _kind(value: object) -> str:
    """Name a JSON value's type, with the value when it is short, for an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}" if len(value) <= 40 else "a long string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
