"""The Python text of a rendered program: one resource's block, its literals and names.

This module owns how a graph node reads in ``__main__.py``: the SDK constructor a Pulumi type
token becomes (``constructor_of``; ``PACKAGES`` the provider SDKs, Kubernetes groups without
generated classes as ``CustomResource``), the variable each resource gets (never a keyword, an
SDK alias or a helper's name), the keyword arguments and resource options (``provider``,
``depends_on``, ``delete_before_replace`` for ``DELETE_BEFORE_REPLACE``, ``ignore_changes`` in
the provider's camelCase), ``literal`` (plain data as Python literals, dict keys sorted, lines
broken at 99 characters; ``Ref`` as another variable's output, ``Lookup`` as a call of one of
the program helpers in ``HELPERS``, made once per distinct call), and ``safe_text``, the
characters a comment may keep. ``gpupool.render`` writes the files around the blocks.
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpupool import clouds
from gpupool.errors import RenderError
from gpupool.graph import Lookup, Ref, Resource

# type-token package -> its provider SDK (module, alias in the program, distribution, version)
PACKAGES: dict[str, clouds.Sdk] = {sdk.token: sdk for sdk in clouds.sdks()}
_K8S = clouds.KUBERNETES_SDK.token
# program helper -> (standard-library modules, other helpers) it needs
_HELPER_NEEDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "aks_kubeconfig": (("base64",), ("invoke_field",)),
    "as_string": ((), ()),
    "eks_kubeconfig": (("json",), ("invoke_field",)),
    "eks_vpc_config": ((), ("invoke_field",)),
    "gke_kubeconfig": (("json",), ("invoke_field",)),
    "invoke_field": ((), ()),
    "vke_cluster_id": ((), ("invoke_field",)),
    "vke_kubeconfig": (("base64",), ("invoke_field",)),
}
# program helper -> the packages it calls (each cloud names the helpers that call its SDK)
_HELPERPACKAGES = {
    helper: (cloud.sdk.token,)
    for cloud in clouds.all_clouds()
    if cloud.sdk is not None
    for helper in cloud.program_helpers
}
# program helper -> (packages, standard-library modules, other helpers) it needs
HELPERS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    name: (_HELPERPACKAGES.get(name, ()), stdlib, needs)
    for name, (stdlib, needs) in _HELPER_NEEDS.items()
}
# Kubernetes API groups with generated SDK classes (others render as CustomResource)
_K8S_PLAIN_GROUPS = {"core", "apps", "batch", "autoscaling", "policy", "helm.sh", "yaml"}
# Types a cloud replaces by deleting first (names gpupool chose, which the cloud would reuse)
DELETE_BEFORE_REPLACE = frozenset(t for c in clouds.all_clouds() for t in c.delete_before_replace)
_RESERVED = {"pulumi", "opts", *(s.alias for s in PACKAGES.values()), *HELPERS}
_WIDTH = 99


def safe_text(text: str, extra: str = "") -> str:
    """Keep only characters that cannot break a comment, a Markdown cell or a quoted word."""
    allowed = re.escape(" ._:/@=+,()-" + extra)
    return re.sub(rf"[^A-Za-z0-9{allowed}]", "?", str(text))[:160]


@dataclass
class Program:
    """The Python text of one program: variable names, helper calls and literals."""

    vars: dict[str, str] = field(default_factory=dict)
    packages: set[str] = field(default_factory=set)
    helpers: list[str] = field(default_factory=list)
    lookups: dict[str, str] = field(default_factory=dict)
    pending: list[tuple[str, str]] = field(default_factory=list)
    taken: set[str] = field(default_factory=set)  # every name in ``vars`` and ``lookups``

    def name_var(self, address: str) -> str:
        """Return a fresh variable name for the resource at ``address``, and keep it."""
        base = re.sub(r"[^0-9A-Za-z_]+", "_", address).strip("_") or "resource"
        if base[0].isdigit() or keyword.iskeyword(base) or base in _RESERVED:
            base = "r_" + base
        self.vars[address] = var = self._fresh(base)
        self.taken.add(var)
        return var

    def _fresh(self, base: str, numbered: bool = False) -> str:
        """Return ``base`` (or ``base_<n>``) unless a variable has that name already."""
        n = 1
        var = f"{base}_{n}" if numbered else base
        while var in self.taken:
            n += 1
            var = f"{base}_{n}"
        return var

    def literal(self, value: Any, indent: int = 0, lead: int = 0) -> str:
        """Return ``value`` as a Python expression (plain data, ``Ref`` or ``Lookup``).

        ``indent`` is the indentation of the line the expression starts on and ``lead`` the
        number of characters before it on that line; both only decide where lines break.
        """
        if isinstance(value, Ref):
            var = self.vars.get(value.address)
            if var is None or (value.attr and not value.attr.isidentifier()):
                raise RenderError(f"cannot render a reference to {value.address}.{value.attr}")
            return f"{var}.{value.attr}" if value.attr else var
        if isinstance(value, Lookup):
            return self._lookup(value)
        if value is None or isinstance(value, (bool, int, str)):
            return repr(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise RenderError(f"cannot render the number {value!r}")
            return repr(value)
        if isinstance(value, Mapping):
            if not all(isinstance(k, str) for k in value):
                raise RenderError("mapping keys must be strings")
            items = [
                f"{k!r}: {self.literal(value[k], indent + 4, len(repr(k)) + 2)}"
                for k in sorted(value)
            ]
            return _wrap("{", items, "}", indent, lead)
        if isinstance(value, (list, tuple)):
            items = [self.literal(v, indent + 4) for v in value]
            return _wrap("[", items, "]", indent, lead)
        raise RenderError(f"cannot render a value of type {type(value).__name__}")

    def _lookup(self, lookup: Lookup) -> str:
        if lookup.function not in HELPERS:
            raise RenderError(f"no program helper called {lookup.function!r}")
        key = repr(sorted((k, self.literal(v)) for k, v in lookup.args.items()))
        if key not in self.lookups:
            var = self._fresh(lookup.function, numbered=True)
            args = [
                f"{k}={self.literal(lookup.args[k], 4, len(k) + 1)}" for k in sorted(lookup.args)
            ]
            call = _wrap(f"{lookup.function}(", args, ")", 0, len(var) + 3)
            packages, _, needs = HELPERS[lookup.function]
            self.packages.update(packages)
            for helper in (lookup.function, *needs):
                if helper not in self.helpers:
                    self.helpers.append(helper)
            self.lookups[key] = var
            self.taken.add(var)
            self.pending.append((var, call))
        return self.lookups[key]

    def block(self, res: Resource) -> dict[str, Any]:
        """Return one resource's block for ``__main__.py.j2``: its comment, name, arguments."""
        package, constructor = constructor_of(res.type)
        self.packages.add(package)
        inputs = dict(res.inputs)
        if constructor == "k8s.apiextensions.CustomResource":
            group_version, _, kind = res.type.split(":", 1)[1].rpartition(":")
            inputs.setdefault("api_version", group_version)
            inputs.setdefault("kind", kind)
        for key in inputs:
            if not key.isidentifier() or keyword.iskeyword(key) or key in ("opts", "__props__"):
                raise RenderError(f"{res.address}: {key!r} cannot be a keyword argument")
        kwargs = [(k, self.literal(inputs[k], 4, len(k) + 1)) for k in sorted(inputs)]
        options = []
        if res.provider:
            options.append(("provider", self.literal(Ref(res.provider, ""))))
        deps = [d for d in dict.fromkeys(res.depends_on) if d != res.provider]
        if deps:
            options.append(("depends_on", self.literal([Ref(d, "") for d in deps], 8, 11)))
        if res.type in DELETE_BEFORE_REPLACE:
            options.append(("delete_before_replace", "True"))
        if res.ignore_changes:
            # Pulumi matches ignore_changes on the provider's (camelCase) property paths.
            wire = [".".join(_camel(p) for p in path.split(".")) for path in res.ignore_changes]
            options.append(("ignore_changes", self.literal(wire, 8, 14)))
        lookups, self.pending = self.pending, []
        return {
            "comment": _comment(res),
            "var": self.name_var(res.address),
            "constructor": constructor,
            "name": repr(res.name),
            "kwargs": kwargs,
            "options": options,
            "lookups": lookups,
        }


def _wrap(open_: str, items: list[str], close: str, indent: int, lead: int = 0) -> str:
    flat = open_ + ", ".join(items) + close
    if not items or ("\n" not in flat and indent + lead + len(flat) < _WIDTH):
        return flat
    pad = " " * (indent + 4)
    return open_ + "\n" + "".join(f"{pad}{item},\n" for item in items) + " " * indent + close


def _comment(res: Resource) -> str:
    kind, _, who = res.owner.partition(":")
    where = f"{kind} {who}" if who else f"{kind}-wide"
    capacity = f" ({res.facts['capacity']})" if res.facts.get("kind") == "node-pool" else ""
    return safe_text(f"{where}: {res.type}{capacity}")


def constructor_of(type_token: str) -> tuple[str, str]:
    """Return the package and the constructor expression of a Pulumi type token.

    Raises:
        RenderError: a type token of a package gpupool does not render.

    """
    parts = type_token.split(":")
    if len(parts) != 3:
        raise RenderError(f"malformed type token {type_token!r}")
    if parts[:2] == ["pulumi", "providers"]:
        package, expr = parts[2], "Provider"
    else:
        package, module, cls = parts
        if package == _K8S:
            group, _, version = module.rpartition("/")
            if group in _K8S_PLAIN_GROUPS or group.endswith(".k8s.io"):
                expr = f"{group.split('.')[0]}.{version}.{cls}"
            else:
                expr = "apiextensions.CustomResource"
        else:
            expr = f"{module.split('/')[0]}.{cls}"
    if package not in PACKAGES or not all(p.isidentifier() for p in expr.split(".")):
        raise RenderError(f"gpupool cannot render the type {type_token!r}")
    return package, f"{PACKAGES[package].alias}.{expr}"


def _camel(name: str) -> str:
    """Return the provider's name for an SDK keyword: ``desired_size`` -> ``desiredSize``."""
    head, *rest = name.rstrip("_").split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)
