"""Every diagnostic code gpupool can emit is produced by at least one fixture.

The codes are found by reading the source (``ast``), not by a hand-kept list: every call of the
diagnostic builders (``error``, ``warning``, ``info``, ``Diagnostic``) from
``gpupool.spec.diagnostics``, anywhere under ``gpupool/``, contributes its code argument. A code
given as a variable is traced to the literals it is set from (a helper's parameter to the calls
of that helper in the same module, a local assignment, a loop over literals); a code built with
an f-string is expanded by ``DYNAMIC`` below. Anything the scanner cannot resolve fails the test
rather than being skipped.

The produced codes come from validating every fixture under ``tests/fixtures/{invalid,valid}``
(whose diagnostics ``test_validate_fixtures`` pins line by line) plus the few hostile files that
cannot be fixtures: a file over the size limit and a file that is not UTF-8. Workload files
(``gpupool simulate --workload``) are inputs with diagnostics of their own: every file under
``tests/fixtures/workloads/`` is read (``openb-*`` as an openb pod list) and, when it reads, its
names are checked against ``WORKLOAD_STACK`` (``tests/simulate/test_workload.py`` pins them line
by line), plus the hostile workloads no fixture can be (a line too long, bytes that are not
UTF-8, more problems than are listed).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import gpupool
from gpupool.spec import load
from gpupool.spec.validate import validate_file
from tests.paths import FIXTURES

SOURCE = Path(gpupool.__file__).parent
DIAGNOSTICS_MODULE = "gpupool.spec.diagnostics"
#: The builders and the position of their code argument.
BUILDERS = {"error": 0, "warning": 0, "info": 0, "Diagnostic": 1}
#: A code is ``family.kebab-name`` (possibly with more dotted parts).
CODE = re.compile(r"^[a-z][a-z0-9-]*(\.[a-zA-Z0-9][a-zA-Z0-9-]*)+$")
#: The scanner must find at least this many codes; fewer means it has stopped seeing them.
MIN_CODES = 60

#: JSON Schema keywords that never fail by themselves (they only apply subschemas, whose own
#: keywords are what jsonschema reports) or are annotations.
_NON_FAILING_KEYWORDS = {
    "$schema", "$id", "$ref", "$defs", "$dynamicRef", "$anchor", "$comment", "definitions",
    "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
    "properties", "patternProperties", "items", "prefixItems", "additionalItems",
    "dependentSchemas", "unevaluatedItems", "unevaluatedProperties", "if", "then", "else",
    "allOf", "propertyNames", "contentEncoding", "contentMediaType", "contentSchema", "format",
}  # fmt: skip
#: Keywords gpupool.spec.schema translates into a code of their own (not ``schema.<keyword>``).
_TRANSLATED_KEYWORDS = {"additionalProperties", "required", "enum", "const", "type"}


def _schema_keyword_codes() -> set[str]:
    """``schema.<keyword>`` for every failing keyword the stack schema uses untranslated.

    gpupool.spec.schema reports any jsonschema failure it has no special wording for as
    ``f"schema.{v}"``, ``v`` being the failing keyword; the keywords that can fail are the ones
    the published schema uses.
    """
    from gpupool.resources import schema_path

    schema = json.loads(Path(schema_path()).read_text(encoding="utf-8"))
    used: set[str] = set()

    def walk(node: object, keys_are_names: bool = False) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if not keys_are_names:
                    used.add(key)
                walk(value, not keys_are_names and key in ("properties", "$defs", "definitions"))
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return {f"schema.{k}" for k in used - _NON_FAILING_KEYWORDS - _TRANSLATED_KEYWORDS}


#: Codes built with f-strings, by template (as written, ``{expr}`` for each placeholder):
#: a function listing the concrete codes the template can produce.
DYNAMIC: dict[str, Callable[[], set[str]]] = {
    "schema.{v}": _schema_keyword_codes,
}

#: Codes in the source that no input can produce, with the reason. Each stays listed only while
#: it is still in the source and still not produced.
UNREACHABLE: dict[str, str] = {
    "schema.bad-key": (
        "gpupool.spec.schema translates errors whose validator is 'propertyNames', but "
        "jsonschema (4.x) reports a failing property name with the keyword of the propertyNames "
        "subschema that failed ('pattern', 'maxLength'), so such names come out as "
        "schema.pattern / schema.maxLength instead"
    ),
}


# ---------------------------------------------------------------------------------------------
# Scanning the source


@dataclass
class Scan:
    """What the scanner found: code -> where it is emitted (and by which builders: ``warning``,
    ``error``, ``info``), and what it could not resolve."""

    codes: dict[str, set[str]] = field(default_factory=dict)
    builders: dict[str, set[str]] = field(default_factory=dict)
    unresolved: list[str] = field(default_factory=list)
    malformed: list[str] = field(default_factory=list)


def _module_name(path: Path) -> str:
    rel = path.relative_to(SOURCE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _absolute(module: str | None, level: int, here: str, is_package: bool) -> str:
    if not level:
        return module or ""
    base = here.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, module] if module else base)


class _Module:
    """One parsed source file and the names under which it reaches the diagnostic builders."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = _module_name(path)
        self.tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        self.parent: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node
        self.builders: dict[str, str] = {}  # local name -> builder
        self.modules: set[str] = set()  # local names bound to the diagnostics module
        if self.name == DIAGNOSTICS_MODULE:
            self.builders = {b: b for b in BUILDERS}
        is_package = path.name == "__init__.py"
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom):
                source = _absolute(node.module, node.level, self.name, is_package)
                for alias in node.names:
                    if source == DIAGNOSTICS_MODULE and alias.name in BUILDERS:
                        self.builders[alias.asname or alias.name] = alias.name
                    elif f"{source}.{alias.name}" == DIAGNOSTICS_MODULE:
                        self.modules.add(alias.asname or alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == DIAGNOSTICS_MODULE and alias.asname:
                        self.modules.add(alias.asname)

    @property
    def relevant(self) -> bool:
        return bool(self.builders or self.modules)

    def where(self, node: ast.AST) -> str:
        return f"{self.path.relative_to(SOURCE.parent)}:{getattr(node, 'lineno', '?')}"

    def builder(self, call: ast.Call) -> str | None:
        f = call.func
        if isinstance(f, ast.Name):
            return self.builders.get(f.id)
        if (
            isinstance(f, ast.Attribute)
            and isinstance(f.value, ast.Name)
            and f.value.id in self.modules
            and f.attr in BUILDERS
        ):
            return f.attr
        return None

    def enclosing(self, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        while node in self.parent:
            node = self.parent[node]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return node
        return None

    def is_method(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        return isinstance(self.parent.get(fn), ast.ClassDef)

    def calls_to(self, name: str) -> Iterator[ast.Call]:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                f = node.func
                if (isinstance(f, ast.Name) and f.id == name) or (
                    isinstance(f, ast.Attribute) and f.attr == name
                ):
                    yield node


def _argument(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    if index < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:index]):
        return call.args[index]
    return None


def _default(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> ast.expr | None:
    """Return the default value of parameter ``name`` of ``fn``, if it has one."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    with_default = positional[len(positional) - len(a.defaults) :]
    pairs = [
        *zip(with_default, a.defaults, strict=True),
        *zip(a.kwonlyargs, a.kw_defaults, strict=True),
    ]
    return next((d for arg, d in pairs if arg.arg == name), None)


def _template(node: ast.JoinedStr) -> str:
    out = []
    for part in node.values:
        if isinstance(part, ast.Constant):
            out.append(str(part.value))
        elif isinstance(part, ast.FormattedValue):
            out.append("{" + ast.unparse(part.value) + "}")
    return "".join(out)


class _Resolver:
    """Turns a code expression into the literal codes it can take."""

    def __init__(self, mod: _Module, scan: Scan) -> None:
        self.mod = mod
        self.scan = scan

    def fail(self, node: ast.AST, why: str) -> set[tuple[str, str]]:
        self.scan.unresolved.append(f"{self.mod.where(node)}: {ast.unparse(node)} ({why})")
        return set()

    def resolve(self, node: ast.expr, depth: int = 0) -> set[tuple[str, str]]:
        """Return (code, where the code is written) for every value ``node`` can take."""
        if depth > 8:
            return self.fail(node, "traced through too many helpers")
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return {(node.value, self.mod.where(node))}
        if isinstance(node, ast.JoinedStr):
            template = _template(node)
            if template not in DYNAMIC:
                return self.fail(node, f"f-string code {template!r}: list its values in DYNAMIC")
            return {(code, self.mod.where(node)) for code in DYNAMIC[template]()}
        if isinstance(node, ast.IfExp):
            return self.resolve(node.body, depth + 1) | self.resolve(node.orelse, depth + 1)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return set().union(*(self.resolve(e, depth + 1) for e in node.elts))
        if isinstance(node, ast.Name):
            return self.name(node, depth)
        return self.fail(node, "not a literal, a variable, or an f-string")

    def name(self, node: ast.Name, depth: int) -> set[tuple[str, str]]:
        fn = self.mod.enclosing(node)
        if fn is None:
            return self.module_level(node, depth)
        names = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]
        if node.id in names or node.id in [a.arg for a in fn.args.kwonlyargs]:
            return self.parameter(fn, node, names, depth)
        found: set[tuple[str, str]] = set()
        bound = False
        for sub in ast.walk(fn):
            if (
                isinstance(sub, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == node.id for t in sub.targets)
            ) or (
                isinstance(sub, (ast.AnnAssign, ast.AugAssign))
                and isinstance(sub.target, ast.Name)
                and sub.target.id == node.id
                and sub.value is not None
            ):
                bound = True
                found |= self.resolve(sub.value, depth + 1)  # type: ignore[arg-type]
            elif (
                isinstance(sub, (ast.For, ast.comprehension))
                and isinstance(sub.target, ast.Name)
                and sub.target.id == node.id
            ):
                bound = True
                found |= self.resolve(sub.iter, depth + 1)
        return found if bound else self.module_level(node, depth)

    def module_level(self, node: ast.Name, depth: int) -> set[tuple[str, str]]:
        found: set[tuple[str, str]] = set()
        for sub in self.mod.tree.body:
            if isinstance(sub, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == node.id for t in sub.targets
            ):
                found |= self.resolve(sub.value, depth + 1)
        return found or self.fail(node, f"no assignment of {node.id!r} found")

    def parameter(
        self,
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        node: ast.Name,
        names: list[str],
        depth: int,
    ) -> set[tuple[str, str]]:
        index = names.index(node.id) if node.id in names else len(names) + 99
        if self.mod.is_method(fn) and names and names[0] in ("self", "cls"):
            index -= 1
        default = _default(fn, node.id)
        found: set[tuple[str, str]] = set()
        calls = list(self.mod.calls_to(fn.name))
        for call in calls:
            arg = _argument(call, index, node.id) or default
            if arg is None:
                self.fail(call, f"call of {fn.name} without a readable {node.id!r}")
                continue
            found |= self.resolve(arg, depth + 1)
        if not calls:
            return self.fail(node, f"parameter of {fn.name}, which this module never calls")
        return found


def _is_builder_definition(mod: _Module, call: ast.Call) -> bool:
    """True for the ``Diagnostic(...)`` inside ``error()``/``warning()`` themselves."""
    fn = mod.enclosing(call)
    return mod.name == DIAGNOSTICS_MODULE and fn is not None and fn.name in BUILDERS


@cache
def scan_source() -> Scan:
    """Return every code a builder call under gpupool/ can emit."""
    scan = Scan()
    for path in sorted(SOURCE.rglob("*.py")):
        mod = _Module(path)
        if not mod.relevant:
            continue
        resolver = _Resolver(mod, scan)
        for node in ast.walk(mod.tree):
            if not isinstance(node, ast.Call):
                continue
            builder = mod.builder(node)
            if builder is None or _is_builder_definition(mod, node):
                continue
            arg = _argument(node, BUILDERS[builder], "code")
            if arg is None:
                scan.unresolved.append(f"{mod.where(node)}: {builder}() without a code argument")
                continue
            for code, where in resolver.resolve(arg):
                if not CODE.match(code):
                    scan.malformed.append(f"{where}: {code!r}")
                scan.codes.setdefault(code, set()).add(where)
                scan.builders.setdefault(code, set()).add(builder)
    return scan


# ---------------------------------------------------------------------------------------------
# Producing codes


def _hostile_files(tmp: Path) -> list[Path]:
    """Files no fixture can be: one over the size limit, one that is not UTF-8 text."""
    too_large = tmp / "too-large.yaml"
    too_large.write_bytes(b"# " + b"x" * (load.MAX_BYTES + 10))
    not_utf8 = tmp / "not-utf8.yaml"
    not_utf8.write_bytes(
        b"apiVersion: gpupool.io/v1\nkind: GpuPoolStack\nmetadata: {name: caf\xe9}\n"
    )
    return [too_large, not_utf8]


#: The stack the workload fixtures name their tenants, pools and MIG profiles from.
WORKLOAD_STACK = "aws-training-compact"


def _hostile_workloads(tmp: Path) -> list[Path]:
    """Workloads no fixture can be: a line too long, bytes not UTF-8, too many problems."""
    from gpupool.simulate import source

    header = b"name,duration\n"
    too_long = tmp / "too-long.csv"
    too_long.write_bytes(header + b"a," + b"1" * (source.MAX_LINE_BYTES + 10) + b"\n")
    not_utf8 = tmp / "not-utf8.csv"
    not_utf8.write_bytes(header + b"caf\xe9,60\n")
    many = tmp / "many.csv"
    # distinct problems: rows with the same one are a single diagnostic
    many.write_bytes(header + b"".join(b"x%d,soon%d\n" % (i, i)
                                       for i in range(source.MAX_PROBLEMS + 5)))
    return [too_long, not_utf8, many]


def _workload_codes(tmp: Path) -> dict[str, list[str]]:
    """Return code -> the workload files whose reading or name check produces it."""
    from gpupool.simulate.source import WorkloadError
    from gpupool.simulate.workload import check_workload, read_workload
    from tests.stacks import load_stack

    stack = load_stack(WORKLOAD_STACK)
    files = sorted(p for p in (FIXTURES / "workloads").rglob("*") if p.is_file())
    assert files, f"no workload fixtures under {FIXTURES / 'workloads'}"
    out: dict[str, list[str]] = {}
    for path in [*files, *_hostile_workloads(tmp)]:
        try:
            workload = read_workload(path, "openb" if path.name.startswith("openb-") else None)
        except WorkloadError as exc:
            found = list(exc.problems)
        else:
            found = check_workload(stack, workload)
        for d in found:
            out.setdefault(d.code, []).append(path.name)
    # request traces (simulate --requests), checked against the services example
    from gpupool.simulate.requests import check_requests, read_requests

    services = [s.name for s in load_stack("aws-inference-services").services]
    for path in sorted((FIXTURES / "requests").glob("*.csv")):
        for d in check_requests(services, read_requests([str(path)])):
            out.setdefault(d.code, []).append(path.name)
    return out


def produced_codes(tmp: Path) -> dict[str, list[str]]:
    """Return code -> the files whose validation produces it."""
    fixtures = sorted((FIXTURES / "invalid").glob("*.yaml")) + sorted(
        (FIXTURES / "valid").glob("*.yaml")
    )
    assert fixtures, f"no fixtures under {FIXTURES}"
    out: dict[str, list[str]] = {}
    for path in [*fixtures, *_hostile_files(tmp)]:
        for d in validate_file(path).diagnostics:
            out.setdefault(d.code, []).append(path.name)
    for code, names in _workload_codes(tmp).items():
        out.setdefault(code, []).extend(names)
    return out


# ---------------------------------------------------------------------------------------------
# Tests


def test_the_scanner_resolves_every_code_it_finds() -> None:
    """Every builder call's code is a literal, a traceable variable or a listed f-string."""
    scan = scan_source()
    assert not scan.unresolved, "codes the scanner cannot resolve:\n" + "\n".join(scan.unresolved)
    assert not scan.malformed, "codes not shaped family.name:\n" + "\n".join(scan.malformed)
    assert len(scan.codes) >= MIN_CODES, (
        f"the scanner found only {len(scan.codes)} codes under {SOURCE}; it has probably stopped "
        "recognising the builder calls"
    )


def test_every_emitted_code_is_produced_by_a_fixture(tmp_path: Path) -> None:
    """A code no fixture produces is a rule no test exercises end to end."""
    emitted = scan_source().codes
    produced = produced_codes(tmp_path)
    missing = sorted(set(emitted) - set(produced) - set(UNREACHABLE))
    assert not missing, "codes no fixture produces:\n" + "\n".join(
        f"  {code}  (emitted at {', '.join(sorted(emitted[code]))})" for code in missing
    )


def test_produced_codes_are_all_known_to_the_scanner(tmp_path: Path) -> None:
    """A produced code the scanner missed means the scanner is blind somewhere."""
    unknown = sorted(set(produced_codes(tmp_path)) - set(scan_source().codes))
    assert not unknown, f"codes produced but not found in the source: {unknown}"


def test_unreachable_codes_are_still_unreachable(tmp_path: Path) -> None:
    """UNREACHABLE lists only codes that are still in the source and still never produced."""
    emitted = scan_source().codes
    produced = produced_codes(tmp_path)
    gone = sorted(set(UNREACHABLE) - set(emitted))
    assert not gone, f"no longer in the source; drop from UNREACHABLE: {gone}"
    reached = sorted(set(UNREACHABLE) & set(produced))
    assert not reached, f"now produced by a fixture; drop from UNREACHABLE: {reached}"
