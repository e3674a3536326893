"""Which GPU a node says it has: GPU Feature Discovery's product and memory labels checked.

What real nodes write, and what is tolerated (beside the product spellings of
``gpupool.drift.gpu_names``):

* GFD v0.6.0 and v0.6.1 wrote ``nvidia.com/gpu.memory`` in bytes, not MiB;
* nominal and reported memory differ (an "80 GB" A100 reports 81920 MiB, an L4 23034 MiB):
  within ``MEMORY_TOLERANCE`` matches;
* a MIG device's memory is its real size, up to ~11% below the profile's name (H200 ``1g.18gb``
  is 16 GiB, H100 NVL ``1g.12gb`` 10.75 GiB): the memory must be nearer the declared profile's
  than any other profile's of the catalog's geometry;
* a vGPU (an instance with a slice of one GPU) is named with its vGPU type (``NVIDIA A10-4Q``).
"""

from __future__ import annotations

import re

from gpupool.drift.expectation import Expected
from gpupool.drift.gpu_names import normalise_product, profile_key, split_product
from gpupool.drift.items import NodeFindings
from gpupool.model import Pool

#: Nominal and reported GPU memory differ (an "80 GB" A100 reports 81920 MiB, an L4 23034 MiB).
MEMORY_TOLERANCE = 0.10

#: A ``gpu.memory`` value this large is bytes (GFD v0.6.0/v0.6.1), never MiB: no GPU has 1 PiB.
_BYTES_THRESHOLD = 2**30
#: NVIDIA vGPU type names end in ``-<frame buffer GB><series>`` (``NVIDIA A10-4Q``; series
#: A, B, C, Q: NVIDIA Virtual GPU software docs, "Virtual GPU Types").
_VGPU_TYPE = re.compile(r"-\d+[ABCQ]$")


def product(want: Expected, pool: Pool, got: str, item: NodeFindings) -> None:
    """Report a product label that names another GPU or another MIG profile."""
    name, profile, _shared = split_product(got)
    base = normalise_product(name)
    if want.vgpu:
        base = _VGPU_TYPE.sub("", base)
    if want.spellings and base not in want.spellings:
        item(want.product, got, f"node has {got}, pool declares {want.product}")
        return
    if profile is not None and not pool.sharing.kind.partitioned:
        item(want.product, got, f"node has {got} (MIG profile {profile}), pool declares no MIG")
        return
    if want.mig_profile is not None and (
        profile is None or profile_key(profile) != profile_key(want.mig_profile)
    ):
        shown = f"MIG profile {profile}" if profile else "no MIG profile"
        item(
            want.product,
            got,
            f"node has {got} ({shown}), pool declares MIG profile {want.mig_profile}",
        )


def memory(want: Expected, raw: str | None, item: NodeFindings) -> None:
    """Report a ``gpu.memory`` label that does not fit the declared GPU or MIG device."""
    mem = memory_mib(raw) if raw else None
    if want.memory_mib and mem is not None and not memory_matches(want, mem[0]):
        item(f"{want.memory_mib:.0f} MiB", mem[1], "GPU memory differs from the declared GPU's")


def memory_mib(raw: str) -> tuple[float, str] | None:
    """Return (MiB, how the raw value reads) for a ``gpu.memory`` label, None if not a number."""
    if not raw.isdigit():
        return None
    value = int(raw)
    if value >= _BYTES_THRESHOLD:  # GFD v0.6.0/v0.6.1 wrote bytes
        return value / 2**20, f"{raw} bytes (GFD v0.6.0/v0.6.1 writes bytes)"
    return float(value), f"{raw} MiB"


def memory_matches(want: Expected, got_mib: float) -> bool:
    """Return True when ``got_mib`` fits the declared GPU or MIG device.

    A MIG device must be nearer (by ratio) the declared profile's memory than any other
    profile's of the catalog's geometry; anything else within :data:`MEMORY_TOLERANCE`.
    """
    assert want.memory_mib is not None
    if want.mig_profile is not None and want.mig_memories_mib and got_mib > 0:
        nearest = min(want.mig_memories_mib, key=lambda m: abs(m - got_mib) / m)
        return abs(nearest - want.memory_mib) < 1e-6
    return abs(got_mib - want.memory_mib) <= want.memory_mib * MEMORY_TOLERANCE
