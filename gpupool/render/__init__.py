"""Writing a stack's resource graph as a standalone Pulumi program (``gpupool render``).

This module owns the rendered directory and how the program reads:

- ``Pulumi.yaml``, ``__main__.py``, ``requirements.txt`` (the SDK versions gpupool was tested
  with), ``README.md``, ``manifests/`` (each Kubernetes object as the API server sees it, for
  review) and ``snippets/`` (``gpupool.sharing.workload_snippets``);
- the program imports ``pulumi`` and the provider SDKs it needs, never gpupool. Every resource is
  one block, ``<var> = <sdk>.<module>.<Class>(<logical name>, <kwarg>=<value>, ...)``, under a
  comment naming its pool, tenant or cluster-wide concern; ``Lookup`` values become calls of
  small helpers (kubeconfigs of the existing cluster...) copied from ``templates/helpers``
  (each block and its literals are ``gpupool.render.program``'s);
- user strings reach the program only as Python literals written by ``Program.literal``
  (``repr`` of plain values, dict keys sorted), never pasted into code, and comments keep only
  a safe set of characters. Output is byte-identical across runs and machines: no timestamps,
  no absolute paths, sorted keys;
- what render may do to the output folder (only gpupool's own folder, every path inside it,
  atomic writes, the ``.gpupool-files`` index) is ``gpupool.outdir``'s; this module gives it the
  files and the pattern of every file name it can write (``_OWN_FILE``).

Nothing secret is written: kubeconfigs and credentials are read by the program when it runs.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import yaml

from gpupool import __version__, outdir, schedulers, sharing
from gpupool.errors import RenderError
from gpupool.graph import Ref, ResourceGraph
from gpupool.model import Stack
from gpupool.render.program import HELPERS, PACKAGES, Program, constructor_of, safe_text
from gpupool.resources import templates_dir
from gpupool.sharing import nvsentinel, scheduler_ha

__all__ = [  # constructor_of and safe_text are gpupool.render.program's
    "PART_SIZE", "SDK_PINS", "RenderError", "RenderResult", "constructor_of", "default_out_dir",
    "manifest_yaml", "render", "safe_text",
]

#: SDK versions the rendered programs are tested with (tests execute them under Pulumi mocks).
SDK_PINS = {"pulumi": "3.272.0", **{s.distribution: s.version for s in PACKAGES.values()}}
# every file render writes, and so all an index may name (``_files``)
_OWN_FILE = re.compile(
    r"Pulumi\.yaml|__main__\.py|requirements\.txt|README\.md"
    r"|(?:manifests|snippets)/[^/\\\0]+\.yaml"
)
#: Bytes one path component may hold (NAME_MAX of Linux file systems; APFS and NTFS: 255 chars).
_NAME_MAX = 255


@dataclass(frozen=True)
class RenderResult:
    """What ``render`` wrote: every file (absolute paths, sorted) and the output directory."""

    files: tuple[Path, ...]
    out_dir: Path


def default_out_dir(stack_file: Path, stack: Stack) -> Path:
    """Return ``.gpupool/build/<stack>/`` next to the stack file.

    Raises:
        RenderError: the stack name is not one plain path component (the schema makes it a
            DNS label; this guards stacks built some other way).

    """
    name = stack.name
    if name in ("", ".", "..") or Path(name).name != name or any(c in name for c in "\\\0"):
        raise RenderError(f"refusing to render stack {stack.name!r}: its name is not a file name")
    return stack_file.parent / ".gpupool" / "build" / stack.name


def _yaml_str(text: object) -> str:
    r"""Return ``text`` as an ASCII YAML double-quoted scalar.

    JSON's escapes are YAML's, except that YAML reads ``\uD83D\uDE00`` as two lone surrogates:
    characters beyond U+FFFF are written as ``\UXXXXXXXX`` instead.
    """
    quoted = json.dumps(str(text), ensure_ascii=False)
    return "".join(
        c if " " <= c < "\x7f" else f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"
        for c in quoted
    )


#: libyaml's emitter where PyYAML has it (PyPI's wheels do), else PyYAML's own: 6x faster, and
#: with lines never folded (``_UNFOLDED``) both write the same bytes (tests/render holds it).
_MANIFEST_DUMPER: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_UNFOLDED = 2**30


def manifest_yaml(manifest: Mapping[str, Any], dumper: Any = None) -> str:
    """Return a manifest as the YAML of ``manifests/``: keys sorted, no line ever folded.

    Raises:
        yaml.YAMLError: the manifest holds something that is not plain data.

    """
    return yaml.dump(manifest, Dumper=dumper or _MANIFEST_DUMPER, sort_keys=True,
                     allow_unicode=True, width=_UNFOLDED)  # fmt: skip


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["yaml_str"] = _yaml_str
    return env


def _program(graph: ResourceGraph, stack: Stack) -> tuple[str, list[str]]:
    program = Program()
    blocks = [program.block(r) for r in graph.resources]
    env = _environment()
    helpers = [
        env.get_template(f"helpers/{name}.py.j2").render().rstrip("\n")
        for name in sorted(program.helpers)
    ]
    stdlib = sorted({m for name in program.helpers for m in HELPERS[name][1]})
    exports = [
        (repr(r.address), program.literal(Ref(r.address, "id")))
        for r in graph.resources
        if r.facts.get("kind") == "node-pool"
    ]
    return env.get_template("__main__.py.j2").render(
        version=__version__,
        stack_comment=safe_text(stack.name),
        stdlib=stdlib,
        sdks=sorted((PACKAGES[p].module, PACKAGES[p].alias) for p in program.packages),
        helpers=helpers,
        parts=_parts(blocks),
        exports=exports,
    ), sorted(program.packages)


def _parts(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cut a large program's resource blocks into functions of ``PART_SIZE`` blocks.

    Pulumi's Python SDK records where each resource was created (``traceback.extract_stack()``
    in ``pulumi.runtime.resource``), and on CPython 3.11 finding a frame's position scans its
    code object from the start (``co_positions``), so in one module-level code object of
    20,000 resources each registration costs in proportion to how far down it is: quadratic
    in all. In functions of ``PART_SIZE`` blocks each scan is short. A program of at most
    ``PART_SIZE`` resources stays flat, as it always was; variables stay module globals.
    """
    if len(blocks) <= PART_SIZE:
        return [{"function": None, "pad": "", "blocks": blocks, "globals": []}]
    out = []
    for start in range(0, len(blocks), PART_SIZE):
        chunk = blocks[start : start + PART_SIZE]
        names = [v for b in chunk for v, _ in b["lookups"]] + [b["var"] for b in chunk]
        lines, line = [], ""
        for name in names:
            if line and len(line) + len(name) + 2 > _GLOBAL_LINE:
                lines.append(line)
                line = ""
            line = f"{line}, {name}" if line else f"global {name}"
        lines.append(line)
        out.append({
            "function": f"_resources_{start // PART_SIZE:04d}",
            "first": start + 1,
            "last": start + len(chunk),
            "pad": "    ",
            "blocks": chunk,
            "globals": lines,
        })
    return out


#: Resource blocks per function in a large program (``_parts``).
PART_SIZE = 200
_GLOBAL_LINE = 92


def _needs(graph: ResourceGraph) -> list[str]:
    """Return what the graph's resources need of the cluster (their ``needs`` facts), once each.

    The sentences come from gpupool's builders; any user value in them (label keys and values,
    pool names) has passed the schema's patterns, so none can break the README's Markdown.
    """
    out: dict[str, None] = {}
    for res in graph.resources:
        for need in res.facts.get("needs") or ():
            out[str(need)] = None
    return list(out)


def _nvsentinel(graph: ResourceGraph) -> dict[str, Any] | None:
    """Return what the README says of the NVSentinel release, or None when there is none."""
    res = graph.get(nvsentinel.RELEASE_ADDRESS)
    if res is None:
        return None
    return {
        "chart": res.facts["chart"],
        "version": res.facts["version"],
        "namespace": res.facts["namespace"],
        "action": res.facts["action"],
        "dry_run": res.facts["dry_run"],
        # the GPU Operator this program installs runs the standalone DCGM NVSentinel reads
        "operator_dcgm": graph.get("helm.gpu-operator") is not None,
        "status": nvsentinel.UPSTREAM_STATUS,
        "status_text": nvsentinel.UPSTREAM_STATUS_TEXT,
    }


def _scheduler(stack: Stack) -> dict[str, Any] | None:
    """Return what the README says of where KAI or HAMi runs, or None under kube-scheduler."""
    placement = scheduler_ha.placement(stack)
    if placement is None:
        return None
    return {"title": schedulers.of(stack).title, "lines": placement.lines()}


def _component(address: str, suffix: str) -> str:
    """Return the file name (without ``suffix``) of a resource's file: one short component.

    A path component holds at most ``_NAME_MAX`` bytes (NAME_MAX on Linux file systems; APFS
    and NTFS take 255 characters). A longer address (a node of 253 characters, Kubernetes'
    limit, in a pool) keeps its start and ends in a digest of the whole address, so two long
    addresses stay two files.
    """
    name = re.sub(r"[^0-9A-Za-z_.-]+", "_", address)
    if len(name) + len(suffix) <= _NAME_MAX:
        return name
    digest = hashlib.sha256(address.encode("utf-8")).hexdigest()[:16]
    return f"{name[: _NAME_MAX - len(suffix) - len(digest) - 1]}-{digest}"


def _files(stack: Stack, graph: ResourceGraph, backend: str) -> dict[str, str]:
    """Return every file of the rendered directory, keyed by relative POSIX path."""
    main, packages = _program(graph, stack)
    env = _environment()
    dists = sorted(PACKAGES[p].distribution for p in packages)
    files = {
        "Pulumi.yaml": env.get_template("Pulumi.yaml.j2").render(
            version=__version__,
            stack_comment=safe_text(stack.name),
            project=stack.name,
            description=f"GPU pools of the gpupool stack {stack.name}",
        ),
        "__main__.py": main,
        "requirements.txt": env.get_template("requirements.txt.j2").render(
            version=__version__, pins=[(d, SDK_PINS[d]) for d in ["pulumi", *dists]]
        ),
    }
    for res in (r for r in graph.resources if r.manifest is not None):
        name = _component(res.address, ".yaml")
        try:
            text = manifest_yaml(res.manifest)
        except yaml.YAMLError as exc:
            raise RenderError(f"the manifest of {res.address} is not plain data: {exc}") from exc
        files[f"manifests/{name}.yaml"] = text
    snippets = sharing.workload_snippets(stack)
    for rel in sorted(snippets):
        if rel in files or rel == "README.md":
            raise RenderError(f"snippet {rel!r} would overwrite a program file")
        files[rel] = snippets[rel]
    counts = Counter(res.type for res in graph.resources)
    files["README.md"] = env.get_template("README.md.j2").render(
        version=__version__,
        stack_comment=safe_text(stack.name),
        backend=safe_text(backend, "?&%~"),
        manifests=any(k.startswith("manifests/") for k in files),
        snippets=bool(snippets),
        counts="\n".join(f"- `{t}`: {n}" for t, n in sorted(counts.items())),
        cloud=stack.provider.cloud,
        needs=_needs(graph),
        nvsentinel=_nvsentinel(graph),
        scheduler=_scheduler(stack),
    )
    return files


def render(
    stack: Stack, graph: ResourceGraph, out_dir: Path, backend: str | None = None
) -> RenderResult:
    """Write the Pulumi program of ``graph`` into ``out_dir``.

    ``out_dir`` must be new, empty, or a folder gpupool rendered before (it keeps an index,
    ``.gpupool-files``, of what it wrote there): a folder holding other files is refused, and so
    is any file render would overwrite that the index does not list. Files the index lists and
    this render does not write are removed; nothing else in the folder is touched. The index is
    checked whole before anything is removed, and names only files render writes. Below a
    ``.gpupool`` folder no component may be a link, and no file is written through one
    (``gpupool.files.open_dir``). The index is written first too (old and new files), so a
    killed render leaves nothing unlisted behind.

    Args:
        stack: the validated stack the graph was built from.
        graph: ``gpupool.assemble.build(stack)``.
        out_dir: where to write (created if missing).
        backend: the state backend as the README names it for a ``pulumi`` run in ``out_dir``
            (default: ``state.backend`` as the stack writes it).

    Returns:
        The files written and the resolved output directory.

    Raises:
        RenderError: a path would escape ``out_dir`` or go through a link, the folder holds
            files gpupool did not write, the index is not one render wrote, or a value has no
            literal form.
        InputError: ``out_dir`` cannot be created or written.

    """
    files = _files(stack, graph, stack.backend if backend is None else backend)
    written, resolved = outdir.write(out_dir, files, _OWN_FILE)
    return RenderResult(written, resolved)
