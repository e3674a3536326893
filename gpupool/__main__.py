"""``python -m gpupool``: the same entry point as the ``gpupool`` console script."""

from gpupool.cli import main

main()
