"""NVSentinel's PodMonitor template: the facts about ``podMonitor.*`` values gpupool relies on.

Read from NVIDIA/NVSentinel v1.19.0 (main commit e002c5dc6be1, which registers the release),
``distros/kubernetes/nvsentinel/templates/podMonitor.yaml``. A Helm template is kept nowhere
beside the repository, so no conformance test reads it; re-read it upstream when gpupool pins a
newer chart. (``values.yaml`` documents ``podMonitor.labels`` only as a commented-out example;
``charts/nvsentinel.json`` records that, and its conformance test checks it.)
"""

from __future__ import annotations

VERSION = "v1.19.0"
#: The template renders its object only when this value is true.
ENABLED_BY = "podMonitor.enabled"
API_VERSION = "monitoring.coreos.com/v1"
KIND = "PodMonitor"
#: The template adds every entry of this map to the PodMonitor's metadata.labels (a ``with``
#: block), after the chart's own labels: the labels a Prometheus' podMonitorSelector matches.
LABELS_FROM = "podMonitor.labels"
#: Other values the template reads (with "/metrics" as the path's default).
ALSO_READS = ("podMonitor.metricsPath", "podMonitor.interval", "podMonitor.scrapeTimeout")
#: The container ports it scrapes.
PORTS = ("metrics", "cleanup-metrics")
