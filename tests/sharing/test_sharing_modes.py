"""What each sharing mode and scheduler renders: the facts the configuration must get right.

One small stack per scheduler (``tests/fixtures/valid/sharing-*.yaml``) plus the examples; each
test states one rule of the upstream formats (device plugin, mig-parted, HAMi, KAI) or of
docs/stack-file.md.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gpupool import facts, sharing
from gpupool.graph import CloudResult, Resource
from tests.stacks import load_stack


class Built:
    """The resources of one stack, looked up by address."""

    def __init__(self, name: str) -> None:
        self.stack = load_stack(name)
        cloud = CloudResult(
            (), "cluster.k8s_provider", {p.name: (f"np.{p.name}",) for p in self.stack.pools}
        )
        self.resources = sharing.build(self.stack, cloud)
        self.by_address = {r.address: r for r in self.resources}

    def get(self, address: str) -> Resource:
        return self.by_address[address]

    def has(self, address: str) -> bool:
        return address in self.by_address

    def values(self, release: str) -> dict[str, Any]:
        return dict(self.get(f"helm.{release}").facts["values"])

    def dp_config(self, key: str) -> dict[str, Any]:
        cm = self.get("k8s.configmap.gpu-operator.gpupool-device-plugin-config").manifest
        assert cm is not None
        return yaml.safe_load(cm["data"][key])

    def mig_configs(self) -> dict[str, Any]:
        cm = self.get("k8s.configmap.gpu-operator.gpupool-mig-parted-config").manifest
        assert cm is not None
        return yaml.safe_load(cm["data"]["config.yaml"])["mig-configs"]

    def quota(self, namespace: str) -> dict[str, str]:
        manifest = self.get(f"k8s.resourcequota.{namespace}.gpupool-gpus").manifest
        assert manifest is not None
        return dict(manifest["spec"]["hard"])

    def queue(self, name: str) -> dict[str, Any]:
        manifest = self.get(f"k8s.queue.{name}").manifest
        assert manifest is not None
        return dict(manifest["spec"])

    def snippet(self, tenant: str, pool: str) -> dict[str, Any]:
        text = sharing.workload_snippets(self.stack)[f"snippets/{tenant}--{pool}.yaml"]
        return yaml.safe_load(text)


@pytest.fixture(scope="module")
def default() -> Built:
    return Built("sharing-default-modes")


@pytest.fixture(scope="module")
def mixed() -> Built:
    return Built("sharing-mig-mixed")


@pytest.fixture(scope="module")
def kai() -> Built:
    return Built("sharing-kai-modes")


@pytest.fixture(scope="module")
def hami() -> Built:
    return Built("sharing-hami-cloud")


# --------------------------------------------------------------------------- default scheduler


def test_time_slicing_config_replicates_gpu(default: Built) -> None:
    cfg = default.dp_config("pool-sliced")
    assert cfg["sharing"] == {
        "timeSlicing": {
            "renameByDefault": False,
            "failRequestsGreaterThanOne": True,
            "resources": [{"name": "nvidia.com/gpu", "replicas": 3}],
        }
    }


def test_mps_config_only_on_whole_gpus(default: Built) -> None:
    cfg = default.dp_config("pool-mps")
    assert set(cfg["sharing"]) == {"mps"}
    assert cfg["sharing"]["mps"]["failRequestsGreaterThanOne"] is True
    assert cfg["sharing"]["mps"]["resources"] == [{"name": "nvidia.com/gpu", "replicas": 4}]
    assert cfg["flags"]["migStrategy"] != "mixed"


def test_exclusive_and_default_configs_share_nothing(default: Built) -> None:
    for key in ("default", "pool-whole", "pool-mig-single"):
        assert "sharing" not in default.dp_config(key)


def test_operator_points_at_configs_with_explicit_default(default: Built) -> None:
    values = default.values("gpu-operator")
    assert values["devicePlugin"] == {
        "enabled": True,
        "config": {"name": "gpupool-device-plugin-config", "default": "default"},
    }
    assert values["migManager"]["config"] == {
        "default": "all-disabled",
        "name": "gpupool-mig-parted-config",
    }
    assert values["driver"] == {"enabled": False}
    assert values["toolkit"] == {"enabled": False}  # the EKS GPU AMI carries it
    # the fixture states its Prometheus (cluster.monitoring.prometheus): ServiceMonitor on, labelled
    assert values["dcgmExporter"]["serviceMonitor"] == {
        "enabled": True,
        "additionalLabels": {"release": "kube-prometheus-stack"},
    }
    # and turns the alerts on: the exporter gets their metrics list (tests/sharing/test_alerts.py)
    assert values["dcgmExporter"]["config"]["name"] == "gpupool-dcgm-metrics"


def test_one_profile_type_means_single_strategy(default: Built) -> None:
    assert default.values("gpu-operator")["mig"] == {"strategy": "single"}
    assert default.mig_configs()["pool-mig-single"] == [
        {"devices": "all", "mig-enabled": True, "mig-devices": {"1g.10gb": 7}}
    ]
    assert default.mig_configs()["all-disabled"] == [{"devices": "all", "mig-enabled": False}]


def test_operator_daemons_tolerate_pool_taints(default: Built) -> None:
    tolerations = default.values("gpu-operator")["daemonsets"]["tolerations"]
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in tolerations
    assert {
        "key": "dedicated",
        "operator": "Equal",
        "value": "sliced",
        "effect": "NoSchedule",
    } in tolerations


def test_quota_limit_is_a_ceiling_in_resource_units(default: Built) -> None:
    # alpha: limit 2.5 GPUs over pools worth 1 and 3 units of nvidia.com/gpu per GPU: the
    # ceiling takes the fewest units, so it never admits more than 2.5 (rounded up: 3) whole
    # GPUs of any pool (facts.tenancy.quota_lines).
    assert default.quota("alpha") == {"requests.nvidia.com/gpu": "3"}
    # beta: no limit -> what its pools hold: mps 2 nodes x 1 GPU x 4 + MIG 1 x 8 GPUs x 7.
    assert default.quota("beta") == {"requests.nvidia.com/gpu": "64"}


def test_priority_classes_around_kai_threshold(default: Built) -> None:
    high = default.get("k8s.priorityclass.gpupool-high").manifest
    low = default.get("k8s.priorityclass.gpupool-preemptible").manifest
    assert high is not None and low is not None
    assert high["value"] >= 100 > low["value"]
    assert low["preemptionPolicy"] == "Never"
    assert not default.has("k8s.priorityclass.gpupool-normal")  # no tenant uses it


def test_no_scheduler_releases_by_default(default: Built) -> None:
    assert not default.has("helm.hami") and not default.has("helm.kai-scheduler")
    assert not any(r.type.endswith(":Queue") for r in default.resources)
    assert (
        "kai.scheduler/queue"
        not in default.get("k8s.namespace.alpha").manifest["metadata"]["labels"]
    )


def test_alert_per_pool_on_framebuffer_share(default: Built) -> None:
    rule = default.get("k8s.prometheusrule.gpu-operator.gpupool-gpu-alerts").manifest
    assert rule is not None
    rules = [
        r for r in rule["spec"]["groups"][0]["rules"] if r.get("alert") == "GpupoolGpuMemoryHigh"
    ]
    assert [r["labels"]["pool"] for r in rules] == [p.name for p in default.stack.pools]
    for r in rules:
        assert "gpupool:DCGM_FI_DEV_FB_USED" in r["expr"]
        assert "gpupool:DCGM_FI_DEV_FB_FREE" in r["expr"]
        assert (
            f'> 80 and on (node) kube_node_labels{{label_gpupool_io_pool="{r["labels"]["pool"]}"}}'
            in r["expr"]
        )


def test_snippet_carries_tolerations_and_selector(default: Built) -> None:
    doc = default.snippet("alpha", "sliced")
    assert doc["spec"]["nodeSelector"] == {"gpupool.io/pool": "sliced"}
    assert doc["spec"]["tolerations"] == [
        {"key": "dedicated", "operator": "Equal", "value": "sliced", "effect": "NoSchedule"}
    ]
    assert doc["spec"]["priorityClassName"] == "gpupool-high"
    assert "schedulerName" not in doc["spec"]
    assert doc["spec"]["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": 1}


def test_node_labels_default_scheduler(default: Built) -> None:
    pool = default.stack.pool("mig-single")
    assert pool is not None
    assert facts.node_labels(default.stack, pool) == {
        "gpupool.io/pool": "mig-single",
        "nvidia.com/device-plugin.config": "pool-mig-single",
        "nvidia.com/mig.config": "pool-mig-single",
    }


# --------------------------------------------------------------------------- MIG mixed


def test_two_profile_types_mean_mixed_strategy(mixed: Built) -> None:
    assert mixed.values("gpu-operator")["mig"] == {"strategy": "mixed"}
    assert mixed.dp_config("pool-sliced")["flags"] == {"migStrategy": "mixed"}
    assert mixed.mig_configs()["pool-mig-mixed"][0]["mig-devices"] == {
        "2g.20gb": 2,
        "3g.40gb": 1,
    }


def test_mixed_resources_in_quotas(mixed: Built) -> None:
    assert mixed.quota("research") == {
        "requests.nvidia.com/gpu": "0",
        "requests.nvidia.com/mig-2g.20gb": "8",
        "requests.nvidia.com/mig-3g.40gb": "4",
    }
    assert mixed.quota("serving") == {
        "requests.nvidia.com/gpu": "8",
        "requests.nvidia.com/mig-2g.20gb": "0",
        "requests.nvidia.com/mig-3g.40gb": "0",
    }


def test_mixed_snippet_asks_for_a_mig_resource(mixed: Built) -> None:
    doc = mixed.snippet("research", "mig-mixed")
    assert doc["spec"]["containers"][0]["resources"]["limits"] == {"nvidia.com/mig-2g.20gb": 1}
    text = sharing.workload_snippets(mixed.stack)["snippets/research--mig-mixed.yaml"]
    assert "nvidia.com/mig-3g.40gb" in text


def test_operator_driver_version_and_no_exporter(mixed: Built) -> None:
    release = mixed.get("helm.gpu-operator")
    assert release.inputs["version"] == "v25.10.1"
    assert release.inputs["repository_opts"] == {"repo": "https://helm.ngc.nvidia.com/nvidia"}
    assert release.inputs["create_namespace"] is False
    values = mixed.values("gpu-operator")
    assert values["driver"] == {"enabled": True}
    assert "toolkit" not in values
    assert values["dcgmExporter"] == {"enabled": False}
    assert not any(r.type.endswith(":PrometheusRule") for r in mixed.resources)


# --------------------------------------------------------------------------- KAI


def test_kai_gpu_sharing_when_fractional(kai: Built) -> None:
    release = kai.get("helm.kai-scheduler")
    # fractional pools that can grow turn on KAI's autoscaling support (KAI v0.17.0
    # docs/gpu-sharing/autoscaling/README.md)
    want = {"global": {"gpuSharing": True, "clusterAutoscaling": True}}
    assert kai.values("kai-scheduler") == want
    assert release.inputs["chart"].startswith("oci://")
    assert "repository_opts" not in release.inputs
    assert "helm.gpu-operator" in release.depends_on
    training = Built("gcp-training-h100-mig")
    assert training.values("kai-scheduler") == {"global": {"gpuSharing": False}}


def test_every_queue_states_all_resources(kai: Built) -> None:
    queues = [r for r in kai.resources if r.type == "kubernetes:scheduling.run.ai/v2:Queue"]
    assert len(queues) == len(kai.stack.tenants) + 1
    for q in queues:
        assert q.manifest is not None
        res = q.manifest["spec"]["resources"]
        for name in ("gpu", "cpu", "memory"):
            assert set(res[name]) == {"quota", "overQuotaWeight", "limit"}
        assert res["cpu"] == res["memory"] == {"quota": -1, "overQuotaWeight": 1, "limit": -1}


def test_queue_quota_weight_limit(kai: Built) -> None:
    assert kai.queue("trainers")["resources"]["gpu"] == {
        "quota": 4,
        "overQuotaWeight": 3,
        "limit": 8,
    }
    # no limit -> -1 (an unset or 0 limit would block everything beyond quota)
    assert kai.queue("servers")["resources"]["gpu"]["limit"] == -1
    assert kai.queue("fractions")["resources"]["gpu"] == {
        "quota": 0.5,
        "overQuotaWeight": 1,
        "limit": -1,
    }


def test_queue_counts_replicas_and_instances_as_kai_does(kai: Built) -> None:
    # servers: 1 GPU of time-slicing x4 = 4 replicas; notebooks: MIG 3g.40gb x2 (single).
    assert kai.queue("servers")["resources"]["gpu"]["quota"] == 4
    assert kai.queue("notebooks")["resources"]["gpu"] == {
        "quota": 2,
        "overQuotaWeight": 1,
        "limit": 4,
    }
    assert kai.queue("batch")["resources"]["gpu"]["limit"] == 8


def test_parent_queue_backs_children(kai: Built) -> None:
    parent = kai.queue("gpupool-sharing-kai")
    children = [kai.queue(t.name) for t in kai.stack.tenants]
    assert all(c["parentQueue"] == "gpupool-sharing-kai" for c in children)
    assert "parentQueue" not in parent
    assert parent["resources"]["gpu"]["quota"] == sum(
        c["resources"]["gpu"]["quota"] for c in children
    )


def test_namespaces_carry_the_tenant_not_a_queue(kai: Built) -> None:
    # KAI v0.17.0 CalcPodGroupQueue (default_grouper.go) never reads namespace labels: the queue
    # label belongs on pods, as the snippets put it.
    ns = kai.get("k8s.namespace.frac").manifest
    assert ns is not None
    assert ns["metadata"]["labels"] == {
        "app.kubernetes.io/managed-by": "gpupool",
        "gpupool.io/stack": ns["metadata"]["labels"]["gpupool.io/stack"],
        "gpupool.io/tenant": "fractions",
    }


def test_kai_fraction_snippets(kai: Built) -> None:
    equal = kai.snippet("fractions", "frac-equal")
    assert equal["metadata"]["annotations"] == {"gpu-fraction": "0.25"}
    assert equal["metadata"]["labels"] == {"kai.scheduler/queue": "fractions"}
    assert equal["spec"]["schedulerName"] == "kai-scheduler"
    assert "resources" not in equal["spec"]["containers"][0]
    assert kai.snippet("fractions", "frac-gib")["metadata"]["annotations"] == {
        "gpu-memory": "20480"
    }
    assert kai.snippet("fractions", "frac-percent")["metadata"]["annotations"] == {
        "gpu-fraction": "0.3"
    }
    assert kai.snippet("fractions", "frac-gib")["spec"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]


def test_kai_tenants_get_no_resource_quota_on_their_own_gpus(kai: Built) -> None:
    # Every pool here advertises nvidia.com/gpu (MIG under strategy single too), so no tenant
    # has a resource to fence and none gets a ResourceQuota: its queue holds the ceiling
    # (facts.tenancy.quota_lines; tests/sharing/test_kai_ceiling.py says why). fractions: no
    # limit, so its queue's limit is -1 where the quota used to be its pools' 4 + 2 + 2 GPUs.
    assert not any(r.type.endswith(":ResourceQuota") for r in kai.resources)
    assert kai.queue("fractions")["resources"]["gpu"]["limit"] == -1


def test_all_priority_classes_vs_threshold(kai: Built) -> None:
    values = {}
    for r in kai.resources:
        if r.type.endswith(":PriorityClass"):
            assert r.manifest is not None
            values[r.facts["priority"]] = r.manifest["value"]
            assert r.manifest["globalDefault"] is False
    assert set(values) == {"critical", "normal", "preemptible", "low"}
    assert values["preemptible"] < values["low"] < 100
    assert 100 <= values["normal"] < values["critical"]


# --------------------------------------------------------------------------- HAMi


def test_hami_disables_nvidia_device_plugin(hami: Built) -> None:
    assert hami.values("gpu-operator")["devicePlugin"] == {"enabled": False}
    assert not hami.has("k8s.configmap.gpu-operator.gpupool-device-plugin-config")
    for pool in hami.stack.pools:
        labels = facts.node_labels(hami.stack, pool)
        assert labels["gpu"] == "on"
        assert "nvidia.com/device-plugin.config" not in labels


def test_hami_values(hami: Built) -> None:
    values = hami.values("hami")
    plugin = values["devicePlugin"]
    assert plugin["deviceSplitCount"] == 4
    assert plugin["deviceMemoryScaling"] == 1.0
    assert "nodeConfiguration" not in plugin
    assert {
        "key": "gpupool.io/pool",
        "operator": "Equal",
        "value": "slices",
        "effect": "NoSchedule",
    } in plugin["tolerations"]
    assert values["devices"] == {"nvidia": {"gpuCorePolicy": "force"}}  # a strict pool
    release = hami.get("helm.hami")
    assert release.inputs["namespace"] == "kube-system"
    assert "helm.gpu-operator" in release.depends_on


def test_hami_snippets_request_memory_and_cores(hami: Built) -> None:
    limits = hami.snippet("online", "quarters")["spec"]["containers"][0]["resources"]["limits"]
    assert limits == {
        "nvidia.com/gpu": 1,
        "nvidia.com/gpumem-percentage": 25,
        "nvidia.com/gpucores": 25,
    }
    online = hami.snippet("online", "slices")["spec"]["containers"][0]["resources"]["limits"]
    assert online == {"nvidia.com/gpu": 1, "nvidia.com/gpumem": 5120, "nvidia.com/priority": 0}
    batch = hami.snippet("batch", "slices")["spec"]["containers"][0]["resources"]["limits"]
    assert batch["nvidia.com/priority"] == 1
    assert hami.snippet("batch", "slices")["spec"]["schedulerName"] == "hami-scheduler"


def test_hami_quota_counts_vgpus(hami: Built) -> None:
    assert hami.quota("online") == {"requests.nvidia.com/gpu": "8"}  # limit 2 x 4 slots
    # 2 whole GPUs on cloud nodes get HAMi's chart-wide split of 4 too: (2 + 4) x 4 vGPUs
    assert hami.quota("batch") == {"requests.nvidia.com/gpu": "24"}


def test_hami_per_node_overrides_on_known_nodes() -> None:
    lab = Built("onprem-hami")
    plugin = lab.values("hami")["devicePlugin"]
    assert plugin["deviceSplitCount"] == 8
    config = yaml.safe_load(plugin["nodeConfiguration"]["config"])
    by_node = {e["name"]: e for e in config["nodeconfig"]}
    assert set(by_node) == {"dgx-01", "dgx-02", "ws-l40s-01"}
    assert by_node["dgx-01"]["devicesplitcount"] == 4
    assert by_node["ws-l40s-01"]["devicememoryscaling"] == 1.5
    assert all(e["operatingmode"] == "hami-core" for e in by_node.values())


# --------------------------------------------------------------------------- operator variants


def test_own_operator_gets_configs_but_no_release() -> None:
    own = Built("sharing-kubernetes-own-operator")
    assert not own.has("helm.gpu-operator") and not own.has("k8s.namespace.gpu-operator")
    dp = own.get("k8s.configmap.gpu-operator.gpupool-device-plugin-config")
    assert dp.facts["operator_values"]["devicePlugin"]["config"]["name"] == (
        "gpupool-device-plugin-config"
    )
    assert dp.depends_on == ("np.lab", "np.desk")
    assert own.mig_configs()["pool-lab"][0]["mig-devices"] == {"1g.10gb": 7}
    rule = own.get("k8s.prometheusrule.gpu-operator.gpupool-gpu-alerts").manifest
    assert rule is not None
    expr = next(r["expr"] for r in rule["spec"]["groups"][0]["rules"] if "alert" in r)
    assert 'node=~"lab-01\\\\.example\\\\.internal|lab-02\\\\.example\\\\.internal"' in expr


def test_gke_with_operator_driver() -> None:
    gke = Built("sharing-gke-operator-driver")
    values = gke.values("gpu-operator")
    assert values["driver"] == {"enabled": True}
    assert values["migManager"]["env"] == [{"name": "WITH_REBOOT", "value": "true"}]
    assert gke.has("k8s.resourcequota.gpu-operator.gpu-operator-quota")
    for pool in gke.stack.pools:
        labels = facts.node_labels(gke.stack, pool)
        assert labels["gke-no-default-nvidia-gpu-device-plugin"] == "true"
        assert "nvidia.com/device-plugin.config" in labels


def test_gke_preinstalled_leaves_sharing_to_gke() -> None:
    gke = Built("gcp-training-h100-mig")
    values = gke.values("gpu-operator")
    assert values["devicePlugin"] == {"enabled": False}
    assert values["migManager"]["enabled"] is False
    assert values["hostPaths"] == {"driverInstallDir": "/home/kubernetes/bin/nvidia"}
    # no device-plugin or MIG config: the only ConfigMap is the Grafana dashboard
    config_maps = [r.address for r in gke.resources if r.type.endswith(":ConfigMap")]
    assert config_maps == ["k8s.configmap.gpu-operator.gpupool-gpu-dashboard"]
    for pool in gke.stack.pools:
        assert facts.node_labels(gke.stack, pool) == {"gpupool.io/pool": pool.name}
    # GKE partitions 3g.40gb x2 and advertises them as nvidia.com/gpu: KAI counts 2 per GPU.
    assert gke.queue("notebooks")["resources"]["gpu"] == {
        "quota": 2,
        "overQuotaWeight": 1,
        "limit": 8,
    }


def test_aks_spot_taint_is_tolerated() -> None:
    aks = Built("azure-kai-fair")
    toleration = {
        "key": "kubernetes.azure.com/scalesetpriority",
        "operator": "Equal",
        "value": "spot",
        "effect": "NoSchedule",
    }
    assert toleration in aks.values("gpu-operator")["daemonsets"]["tolerations"]
    assert toleration in aks.snippet("team-apps", "t4-spot")["spec"]["tolerations"]
    # The on-demand a100 pool carries only its own fencing taint, never the spot one.
    assert aks.snippet("team-nlp", "a100")["spec"]["tolerations"] == [
        {"key": "gpupool.io/pool", "operator": "Equal", "value": "a100", "effect": "NoSchedule"}
    ]
