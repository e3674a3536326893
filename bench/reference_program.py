"""Hand-written reference Pulumi program: the resources of a gpupool graph, registered directly.

``bench/run.py`` copies this file as ``__main__.py`` into a directory next to ``graph.json`` (a
``ResourceGraph.dumps()``), and times it under Pulumi mocks beside the program ``gpupool render``
wrote for the same stack. It is what a person would write by hand to create the same resources:
a loop that calls the SDK classes with the same logical names, inputs, providers and
dependencies, and exports the node-pool ids the same way. It imports only ``pulumi`` and the SDKs,
never gpupool. Lookups: only the EKS kubeconfig the benchmark stacks (AWS) need.
"""

import json
from pathlib import Path

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

GRAPH = json.loads((Path(__file__).parent / "graph.json").read_text(encoding="utf-8"))
K8S_GROUPS = {"core", "apps", "batch", "autoscaling", "policy", "helm.sh", "yaml"}


def sdk_class(type_token):
    """Return the SDK class for a type token, and inputs it implies (custom resources)."""
    package, module, name = type_token.split(":")
    if package == "pulumi" and module == "providers":
        return {"kubernetes": k8s.Provider, "aws": aws.Provider}[name], {}
    if package == "aws":
        return getattr(getattr(aws, module.split("/")[0]), name), {}
    if package == "kubernetes":
        group, _, version = module.rpartition("/")
        if group in K8S_GROUPS or group.endswith(".k8s.io"):
            namespace = getattr(getattr(k8s, group.split(".")[0]), version)
            return getattr(namespace, name), {}
        return k8s.apiextensions.CustomResource, {"api_version": module, "kind": name}
    raise NotImplementedError(type_token)


def invoke_field(value, name):
    if isinstance(value, dict) and name in value:
        return value[name]
    return getattr(value, name)


def eks_kubeconfig(cluster_name, region):
    cluster = aws.eks.get_cluster_output(name=cluster_name, region=region)

    def document(args):
        endpoint, authorities = args
        user = {
            "exec": {
                "apiVersion": "client.authentication.k8s.io/v1beta1",
                "command": "aws",
                "args": [
                    "eks",
                    "get-token",
                    "--cluster-name",
                    cluster_name,
                    "--region",
                    region,
                    "--output",
                    "json",
                ],
            }
        }
        ca = invoke_field(authorities[0], "data")
        return json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [
                    {
                        "name": cluster_name,
                        "cluster": {"server": endpoint, "certificate-authority-data": ca},
                    }
                ],
                "users": [{"name": cluster_name, "user": user}],
                "contexts": [
                    {
                        "name": cluster_name,
                        "context": {"cluster": cluster_name, "user": cluster_name},
                    }
                ],
                "current-context": cluster_name,
            },
            sort_keys=True,
        )

    return pulumi.Output.all(cluster.endpoint, cluster.certificate_authorities).apply(document)


created = {}
kubeconfigs = {}


def value(v):
    """Turn graph data into SDK arguments: references become the referenced outputs."""
    if isinstance(v, dict):
        if set(v) == {"$ref"}:
            address, attr = v["$ref"]
            return getattr(created[address], attr) if attr else created[address]
        if set(v) == {"$lookup"}:
            function, args = v["$lookup"]
            if function != "eks_kubeconfig":
                raise NotImplementedError(function)
            key = (args["cluster_name"], args["region"])
            if key not in kubeconfigs:
                kubeconfigs[key] = eks_kubeconfig(**args)
            return kubeconfigs[key]
        return {k: value(x) for k, x in v.items()}
    if isinstance(v, list):
        return [value(x) for x in v]
    return v


for res in GRAPH["resources"]:
    cls, implied = sdk_class(res["type"])
    kwargs = {**implied, **{k: value(v) for k, v in res["inputs"].items()}}
    deps = [created[d] for d in dict.fromkeys(res["depends_on"]) if d != res["provider"]]
    opts = pulumi.ResourceOptions(
        provider=created[res["provider"]] if res["provider"] else None,
        depends_on=deps or None,
    )
    created[res["address"]] = cls(res["name"], **kwargs, opts=opts)

pulumi.export(
    "node_pools",
    {
        r["address"]: created[r["address"]].id
        for r in GRAPH["resources"]
        if r["facts"].get("kind") == "node-pool"
    },
)
