"""Drift: whether what runs is still what the stack file declares.

Three sources, each optional and reported separately (``items.DriftReport.sources`` says which
ran and why any was skipped):

- ``engine``: a refresh preview of the rendered program (cloud node pools and Kubernetes objects);
- ``cluster``: the GPU state nodes advertise through the Kubernetes API (GPU Feature Discovery
  labels and allocatable resources), compared per pool in ``gpupool.drift.nodes``, and the GPU
  health conditions (AKS Node Problem Detector, NVSentinel), cordons and fault-isolation taints
  of those nodes (``gpupool.drift.conditions``);
- ``node``: ``gpupool node inspect`` reports read with NVML on the nodes, compared in
  ``gpupool.drift.node_reports`` (ECC errors and overheating are faults).

``gpupool.drift.run`` wires them together; each comparison is a pure function tested on
recorded inputs.
"""

from __future__ import annotations

from gpupool.drift.items import DriftItem, DriftReport, SourceStatus

__all__ = ["DriftItem", "DriftReport", "SourceStatus"]
