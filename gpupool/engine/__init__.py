"""The engine boundary: running rendered Pulumi programs and reading their results.

``gpupool.engine.pulumi`` drives the Pulumi CLI through the Automation API (imported lazily, so
importing this package never imports pulumi). ``gpupool.engine.results`` holds the typed values
it returns; ``collector`` turns engine events into those values and ``failures`` turns a failed
CLI run into one of ``gpupool.errors``'s classes. ``child`` runs each CLI command: in a session
of its own, with the stack lock's descriptor inherited and gpupool's SIGINT, SIGTERM and SIGHUP
forwarded to it as Pulumi's cancel.
"""
