"""The outputs ``gpupool simulate`` must keep byte for byte while its engine is restructured.

A helper, not collected: ``tests/simulate/test_same_bytes.py`` runs every case below and
compares each one's digest with ``tests/fixtures/same_bytes/digests.json``, recorded from the
code before the change (issue 36 item 1). A case is the command line of one ``gpupool
simulate`` run, made in process; its digest is the sha256 of its exit code and its standard
output (the progress on standard error follows the wall clock, so it is left out).

The cases: every example stack with generated workloads (two seeds) in every format, with
spot interruptions, spot shortages, an instant scale-up, ``--base`` and ``--saturate``; the
example with a workload of its own and the fixture workloads; the two runaway cases of
``bench/simulate_costs.py`` at small sizes (simulation, fragmentation and report as JSON); and,
where ``../shared/reference/upstream/fgd`` holds the published openb trace, the openb stack of
``bench/openb_stack.py`` with the default trace, ``--saturate`` runs of the multigpu50 and
gpushare40 traces and 3,000 synthetic rows on nine tenths of its nodes (digests only: the
outputs are the trace's, so they stay outside the repository).

Run ``python tests/simulate/same_bytes.py --record`` to rewrite the digests (only before a
change meant to keep them), ``--dump DIR`` to write each case's output there for a diff.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

EXAMPLES = ROOT / "stacks" / "examples"
FIXTURE = ROOT / "tests" / "fixtures" / "same_bytes" / "digests.json"
FGD = ROOT.parent / "shared" / "reference" / "upstream" / "fgd"


def _examples() -> list[Path]:
    return sorted(EXAMPLES.glob("*.yaml"))


def cli_cases() -> Iterator[tuple[str, list[str]]]:
    """Yield (name, argv) of every ``gpupool simulate`` run on the repository's own files."""
    for stack in _examples():
        s = str(stack.relative_to(ROOT))
        gen = [s, "--generate", "120"]
        for seed in ("0", "3"):
            for fmt in ("text", "json", "markdown"):
                yield f"{stack.stem}/gen-s{seed}.{fmt}", [*gen, "--seed", seed, "--format", fmt]
        yield f"{stack.stem}/spot", [*gen, "--spot-interruptions-per-hour", "0.5", "--seed", "1",
                                     "--format", "json"]
        yield f"{stack.stem}/shortage", [*gen, "--spot-shortage", "0.4",
                                         "--spot-interruptions-per-hour", "0.2", "--format", "json"]
        yield f"{stack.stem}/up0", [*gen, "--scale-up-seconds", "0", "--format", "json"]
        yield f"{stack.stem}/long", [s, "--generate", "400", "--seed", "5", "--format", "json"]
        yield f"{stack.stem}/base.text", [*gen, "--base", s]
        yield f"{stack.stem}/base.json", [*gen, "--base", s, "--format", "json"]
        yield f"{stack.stem}/sat80", [*gen, "--saturate", "80", "--format", "json"]
        yield f"{stack.stem}/sat100.text", [*gen, "--saturate", "100"]
        yield f"{stack.stem}/own.text", [s]
        for wl in sorted((ROOT / "tests" / "fixtures" / "workloads" / "valid").iterdir()):
            yield f"{stack.stem}/{wl.name}", [s, "--workload", str(wl.relative_to(ROOT)),
                                              "--format", "json"]
    fair = "stacks/examples/azure-kai-fair.yaml"
    for fmt in ("text", "json", "markdown"):
        yield f"azure-kai-fair/own.{fmt}", [fair, "--format", fmt]
        yield f"azure-kai-fair/fixture.{fmt}", [fair, "--workload",
                                                "tests/fixtures/simulate/azure-kai-fair.csv",
                                                "--format", fmt]
    yield "azure-kai-fair/gen-1500", [fair, "--generate", "1500", "--seed", "9",
                                      "--spot-interruptions-per-hour", "0.3", "--format", "json"]
    yield "azure-kai-fair/own-spot", [fair, "--spot-interruptions-per-hour", "1", "--format",
                                      "json"]


def _cli(argv: list[str]) -> str:
    from gpupool.cli import run

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out):
        code = run(["simulate", *argv], stderr=err)
    return f"exit {code}\n{out.getvalue()}"


def _bench_costs() -> Iterator[tuple[str, Callable[[], str]]]:
    """The cases of ``bench/simulate_costs.py`` at small sizes (JSON of the report)."""
    from gpupool.simulate.engine import simulate_metered
    from gpupool.simulate.report import report
    from gpupool.views.simulate import document
    from tests.simulate.simstacks import job, workload
    from tests.simulate.test_run_costs import FROM_ZERO
    from tests.stacks import load_stack_text

    def shapes(n: int) -> str:
        jobs = [job(f"j{i}", 0, 600, gpus=1, cpu=1 + i / n) for i in range(n)]
        stack = load_stack_text(FROM_ZERO)
        return json.dumps(document(report(*simulate_metered(stack, workload(*jobs)))))

    def gangs(n: int) -> str:
        jobs = [job(f"g{i}", i * 10, 3600, pods=100_000) for i in range(n)]
        stack = load_stack_text(FROM_ZERO)
        return json.dumps(document(report(*simulate_metered(stack, workload(*jobs)))))

    yield "bench/shapes-300", lambda: shapes(300)
    yield "bench/gangs-3", lambda: gangs(3)


def _openb() -> Iterator[tuple[str, Callable[[], str]]]:
    """The openb stack with the published traces, where they are here."""
    nodes = FGD / "openb_node_list_gpu_node.csv"
    if not nodes.exists():
        return
    from bench import openb_stack

    text = openb_stack.stack_text(openb_stack.read_nodes(nodes))
    tmp = Path(tempfile.gettempdir()) / "gpupool-same-bytes"  # a fixed path: outputs name it
    tmp.mkdir(exist_ok=True)
    stack = tmp / "openb.yaml"
    stack.write_text(text, encoding="utf-8")
    def copied(name: str) -> Path:  # the outputs name the trace: a fixed path, not the clone's
        kept = tmp / name
        kept.write_bytes((FGD / name).read_bytes())
        return kept

    default = copied("openb_pod_list_default.csv")
    yield "openb/default", lambda: _cli(
        [str(stack), "--workload", str(default), "--workload-format", "openb", "--format", "json"])
    for trace in ("multigpu50", "gpushare40"):
        pods = copied(f"openb_pod_list_{trace}.csv")
        yield f"openb/{trace}-sat", lambda p=pods: _cli(
            [str(stack), "--workload", str(p), "--workload-format", "openb", "--saturate", "90",
             "--format", "json"])
    # every tenth node left out, so that queues form (bench/simulate.py --share 0.9)
    rows = openb_stack.read_nodes(nodes)
    small = tmp / "openb-0.9.yaml"
    small.write_text(openb_stack.stack_text([r for i, r in enumerate(rows) if i % 10]),
                     encoding="utf-8")
    synthetic = tmp / "synthetic.csv"

    def replay() -> str:
        from gpupool.simulate.generate import write_synthetic

        write_synthetic(synthetic, 3000, tenants=False)
        return _cli([str(small), "--workload", str(synthetic), "--format", "json"])

    yield "openb/synthetic-3000", replay


def cases() -> Iterator[tuple[str, Callable[[], str]]]:
    """Yield (name, a function returning the case's output) for every case."""
    for name, argv in cli_cases():
        yield name, lambda a=argv: _cli(a)
    yield from _bench_costs()
    yield from _openb()


def digest(text: str) -> str:
    """The sha256 of a case's output."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def outputs(only: str | None = None) -> Iterator[tuple[str, str]]:
    """Yield (name, output) of every case (``only``: those whose name starts so)."""
    for name, fn in cases():
        if only is None or name.startswith(only):
            yield name, fn()


def main() -> int:
    """Record the digests, or compare them, or dump the outputs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="rewrite the digests")
    parser.add_argument("--dump", type=Path, help="write each case's output under DIR")
    parser.add_argument("--only", help="only the cases whose name starts so")
    args = parser.parse_args()
    kept = json.loads(FIXTURE.read_text(encoding="utf-8")) if FIXTURE.exists() else {}
    found: dict[str, str] = {}
    bad = 0
    for name, text in outputs(args.only):
        found[name] = digest(text)
        if args.dump:
            path = args.dump / f"{name}.out"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        if not args.record and kept.get(name) != found[name]:
            bad += 1
            print(f"differs: {name}")
    if args.record:
        FIXTURE.parent.mkdir(parents=True, exist_ok=True)
        FIXTURE.write_text(json.dumps(dict(sorted(found.items())), indent=1) + "\n",
                           encoding="utf-8")
        print(f"recorded {len(found)} digests")
    else:
        print(f"{len(found) - bad} of {len(found)} the same")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
