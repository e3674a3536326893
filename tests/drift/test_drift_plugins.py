"""What each plug-in expects of a node, before drift merges it (issue 36).

The sharing modes say what GPU Feature Discovery writes of a node's devices (NVIDIA/
k8s-device-plugin ``docs/gpu-feature-discovery/README.md``, ``internal/lm/resource.go``: whole
GPUs are labelled "without sharing"); GKE says which of its labels a node of a pool it shares
carries (GKE docs, "About GPU time-sharing"; kubernetes/autoscaler
``cluster-autoscaler/cloudprovider/gce`` ``GPUPartitionSizeLabel``); HAMi reads both encodings
of its ``hami.io/node-nvidia-register`` annotation (HAMi ``pkg/device/devices.go``; HAMi website,
"Protocol design").
"""

from __future__ import annotations

from gpupool import clouds, modes
from gpupool.clouds import NodeSharing
from gpupool.modes import NodeDevices, Sharing
from gpupool.sharing import hami


def _mode(trait: str) -> modes.SharingMode:
    return modes.with_trait(trait)[0]


def test_modes_say_what_gfd_writes_of_their_devices() -> None:
    replicated = _mode("replicated")
    sharing = Sharing(mode=replicated.name, replicas=4)
    assert replicated.node_devices(sharing, 2, mig_single=False) == NodeDevices(
        count=2, replicas=4, strategy=replicated.name
    )
    whole = modes.default()
    assert whole.node_devices(Sharing(mode=whole.name), 8, mig_single=False) == NodeDevices(
        count=8, unshared=True
    )
    mig = _mode("partitioned")
    one = Sharing(mode=mig.name, mig_layout=(("1g.5gb", 7),))
    assert mig.node_devices(one, 2, mig_single=True) == NodeDevices(count=14, mig_profile="1g.5gb")
    two = Sharing(mode=mig.name, mig_layout=(("1g.10gb", 2), ("3g.40gb", 1)))
    assert mig.node_devices(two, 4, mig_single=False) == NodeDevices(
        mig_counts=(("1g.10gb", 8), ("3g.40gb", 4))
    )


def test_gke_labels_the_nodes_of_the_pools_it_shares() -> None:
    labeller = next(c.node_sharing_labels for c in clouds.all_clouds() if c.node_sharing_labels)
    shared = labeller(NodeSharing("time-slicing", "timeSlicing", 3, True, ()))
    assert shared == {
        "cloud.google.com/gke-gpu-sharing-strategy": "time-sharing",
        "cloud.google.com/gke-max-shared-clients-per-gpu": "3",
    }
    mps = labeller(NodeSharing("mps", "mps", 2, True, ()))
    assert mps["cloud.google.com/gke-gpu-sharing-strategy"] == "mps"
    assert labeller(NodeSharing("mig", None, None, False, ("1g.10gb",))) == {
        "cloud.google.com/gke-gpu-sharing-strategy": None,
        "cloud.google.com/gke-max-shared-clients-per-gpu": None,
        "cloud.google.com/gke-gpu-partition-size": "1g.10gb",
    }


def test_hami_reads_both_encodings_of_its_registration() -> None:
    legacy = "GPU-0,10,32768,100,NVIDIA-Tesla V100-SXM2-32GB,0,true:GPU-1,10,32768,100,x,0,true:"
    assert hami.registered_devices(legacy) == [
        {"type": "NVIDIA-Tesla V100-SXM2-32GB", "count": 10, "devmem": 32768},
        {"type": "x", "count": 10, "devmem": 32768},
    ]
    modern = '[{"id": "GPU-0", "count": 4, "devmem": 46068, "type": "NVIDIA-NVIDIA L40S"}]'
    assert hami.registered_devices(modern) == [
        {"type": "NVIDIA-NVIDIA L40S", "count": 4, "devmem": 46068}
    ]
    assert hami.registered_devices("[1, 2]") is None
    assert hami.registered_devices("a,b:") is None


def test_hami_findings_name_what_differs() -> None:
    want = hami.NodeRegistration(split=4, memory_mib=46068.0)
    note = {hami.REGISTER_ANNOTATION: '[{"count": 10, "devmem": 20000, "type": "T4"}]'}
    found = hami.registration_findings(
        want, note, gpus=2, product="L40S", declared=lambda t: t == "L40S", tolerance=0.1
    )
    assert [f[2] for f in found] == [
        "HAMi registered 1 GPU(s), pool declares 2",
        "HAMi registered T4, pool declares L40S",
        "HAMi splits each GPU into 10 vGPUs, expected 4",
    ]
    missing = hami.registration_findings(
        want, {}, gpus=1, product=None, declared=None, tolerance=0.1
    )
    assert missing[0][2].startswith("HAMi has registered no GPUs on this node")
