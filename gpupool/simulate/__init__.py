"""Replaying a workload against a stack before it is applied (`gpupool simulate`).

The package reads the stack model and the GPU facts layer, and nothing of render, assemble or the
engine: a workload (``jobs``) runs on the nodes the stack's pools would have, under the stack's
scheduler, tenancy and autoscaling, on a simulated clock.
"""
