"""gpupool: GPU pools as code.

The package owns nothing at import time: every submodule is imported on demand so that
``gpupool --help`` stays fast. See ``gpupool.cli`` for the entry point.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__"]
