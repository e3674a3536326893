"""In-cluster sharing configuration: one module per mechanism turns pools and tenants into
Kubernetes objects and Helm releases.

``build(stack, cloud)`` returns the in-cluster resources (GPU Operator, device-plugin and MIG
configs, HAMi or KAI, namespaces, quotas, priority classes, alerts), each depending on the node
pools it configures. ``node_labels(stack, pool)`` returns the labels a pool's nodes must carry so
that configuration selects them; cloud modules put them on their node pools.
"""

from __future__ import annotations
