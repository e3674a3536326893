"""gpupool's tests: a package, so test modules and helpers import as ``tests.<name>``."""
