"""GPU names as nodes write them, reduced to one spelling drift compares.

Product names differ across driver generations: before driver 470 NVML names carry no
``NVIDIA`` prefix (``A100-SXM4-40GB``), later ones do (``NVIDIA-A100-SXM4-40GB``); GFD appends
``-SHARED`` under time-slicing and ``-MIG-<profile>`` under MIG strategy single, with ``.`` for
``+`` (``…-MIG-1g.10gb.me``). Every spelling the catalog knows for a GPU matches.
"""

from __future__ import annotations

from gpupool.catalog.models import GpuModel

_PREFIX = "NVIDIA-"
_MIG_INFIX = "-MIG-"
_SHARED_SUFFIX = "-SHARED"


def normalise_product(name: str) -> str:
    """Return ``name`` as drift compares GPU names: spaces as ``-``, upper case, no ``NVIDIA-``.

    NVML names (``NVIDIA A100-SXM4-40GB``, before driver 470 ``A100-SXM4-40GB``), GFD's sanitised
    labels (``NVIDIA-A100-SXM4-40GB``), HAMi's types (``NVIDIA-NVIDIA L40S``) and the catalog's
    names all reduce to the same string.
    """
    out = "-".join(name.strip().split()).upper()
    while out.startswith(_PREFIX):
        out = out[len(_PREFIX) :]
    return out


def spellings(gpu: GpuModel) -> frozenset[str]:
    """Return every normalised spelling the catalog knows for ``gpu``."""
    names = (gpu.name, gpu.product_label, *gpu.aliases)
    return frozenset(normalise_product(n) for n in names if n)


def split_product(label: str) -> tuple[str, str | None, bool]:
    """Split a GFD product label into (GPU name, MIG profile or None, shared).

    ``A100-SXM4-40GB-MIG-1g.5gb-SHARED`` gives ``("A100-SXM4-40GB", "1g.5gb", True)``.
    """
    shared = label.endswith(_SHARED_SUFFIX)
    base = label.removesuffix(_SHARED_SUFFIX)
    name, sep, profile = base.partition(_MIG_INFIX)
    return name, (profile if sep else None), shared


def profile_key(profile: str) -> str:
    """GFD and the device plugin write ``+`` as ``.`` (``1g.10gb+me`` -> ``1g.10gb.me``)."""
    return profile.replace("+", ".").lower()
