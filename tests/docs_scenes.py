"""Where each documented command runs: the files and stand-ins its block needs (a helper).

Every block of commands in README.md and docs/*.md runs in a fresh project folder holding a copy
of the repository's ``stacks/``, ``schemas/``, ``templates/`` and ``tests/fixtures/``, with
``gpupool`` (this checkout's, with the interpreter running the tests) first on ``PATH``, no
Pulumi CLI, no kubeconfig, an empty ``HOME`` and no colour. A block whose first command is in
``SCENES`` gets more set up first: the files its text says it has, the tests' stand-in Pulumi
CLI (tests/fake_pulumi) or the advise scenario's Prometheus (tests/advise). ``NOT_RUN`` lists the
commands that are shown but not run, each with the reason.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from tests.advise import overcommit_scenario, scenario
from tests.advise.promserver import serving
from tests.paths import FAKE_PULUMI, FIXTURES, ROOT

#: Commands shown but not run, by how they start, and why.
NOT_RUN: dict[str, str] = {
    "pip install": "installs packages from an index; .ci/run runs the README's install and test "
                   "commands in a fresh virtualenv (tests/hardening/test_supply.py holds it so)",
    "python -m pytest": "the test suite itself, which these tests are part of",
    "lint-imports": "the import contracts, which .ci/run checks",
    "gpupool completion": "writes into the user's shell set-up; tests/cli/test_cli_completion.py "
                          "runs the scripts it prints in bash and zsh",
    "gpupool node inspect": "reads this machine's GPUs through NVML, so its output is the "
                            "machine's; tests/nodes run it against a stand-in NVML",
}

#: The advise scenario's window ends here (``--until``); its series are written up to it.
ADVISE_UNTIL = 1796218800.0

#: The workload a team plans on the advise scenario (docs/commands.md, the queue-wait check).
PLANNED = ("name,tenant,submit,duration,gpus,cpu,memory_gib,pool\n"
           "web/server,,0,86400,1,2,6,l4\n"
           "web/embed,,3600,7200,1,6,20,l4\n"
           "llm/trainer,llm,0,3600,8,16,64,h100\n")


@dataclass
class Scene:
    """A project folder and environment for one block, and the stand-ins it started."""

    project: Path
    home: Path
    env: dict[str, str]
    resources: ExitStack

    def copy(self, source: Path, target: str) -> Path:
        path = self.project / target
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, path)
        return path

    def edit(self, target: str, old: str, new: str) -> None:
        path = self.project / target
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{target} has no {old!r} to edit"
        path.write_text(text.replace(old, new), encoding="utf-8")

    def fake_pulumi(self, scenario: str = "changes", passphrase: bool = True) -> None:
        """Put the tests' stand-in Pulumi CLI first on PATH (tests/fake_pulumi)."""
        launcher = self.env["PATH"].split(":")[0] + "/pulumi"
        python = self.env["GPUPOOL_DOCS_PYTHON"]
        Path(launcher).write_text(
            f'#!/bin/sh\nexec "{python}" "{FAKE_PULUMI / "fake_cli.py"}" "$@"\n', encoding="utf-8")
        Path(launcher).chmod(0o755)
        self.env["FAKE_PULUMI_SCENARIO"] = scenario
        if passphrase:
            self.env["PULUMI_CONFIG_PASSPHRASE"] = "correct horse battery"


def _prod(scene: Scene) -> None:
    """README: tests/fixtures/invalid/schema-and-gpu-errors.yaml saved as stacks/prod.yaml."""
    scene.copy(FIXTURES / "invalid" / "schema-and-gpu-errors.yaml", "stacks/prod.yaml")


def _other_stack_base(scene: Scene) -> None:
    pair = FIXTURES / "plan" / "instance-type"
    scene.copy(pair / "desired.yaml", "stacks/prod.yaml")
    scene.copy(pair / "base.yaml", "stacks/staging.yaml")
    scene.edit("stacks/staging.yaml", "name: plan-test", "name: staging")


def _simulate_against_head(scene: Scene) -> None:
    """The azure-kai-fair example committed, then its A100 pool's nodes.max lowered to 3."""
    for argv in (["init", "-q"], ["add", "-A"],
                 ["-c", "user.name=docs", "-c", "user.email=docs@gpupool.invalid",
                  "commit", "-q", "-m", "stacks"]):
        subprocess.run(["git", *argv], cwd=scene.project, check=True, env=scene.env)
    scene.edit("stacks/examples/azure-kai-fair.yaml", "nodes: {min: 2, max: 4}",
               "nodes: {min: 2, max: 3}")


def _no_passphrase(scene: Scene) -> None:
    scene.copy(FIXTURES / "plan" / "instance-type" / "desired.yaml", "stacks/prod.yaml")
    scene.fake_pulumi(passphrase=False)


def _reviewed(scene: Scene) -> None:
    """volcengine-a10 as stack.yaml, and the file the pull request reviewed with a tenant more."""
    stack = scene.copy(ROOT / "stacks" / "examples" / "volcengine-a10.yaml", "stack.yaml")
    text = stack.read_text(encoding="utf-8")
    (scene.project / "reviewed.yaml").write_text(
        text + "  - name: ml\n    pools: [a10]\n    limit: {gpus: 2}\n", encoding="utf-8")
    scene.fake_pulumi("first-apply")


def _volcengine(scene: Scene) -> None:
    scene.copy(ROOT / "stacks" / "examples" / "volcengine-a10.yaml", "stack.yaml")
    scene.fake_pulumi("first-apply")


def _overlay(document: str) -> Callable[[Scene], None]:
    """The AWS example as stack.yaml and ``document`` as the local price overlay."""

    def prepare(scene: Scene) -> None:
        scene.copy(ROOT / "stacks" / "examples" / "aws-inference-l4.yaml", "stack.yaml")
        folder = scene.home / ".cache" / "gpupool" / "catalog"
        folder.mkdir(parents=True)
        (folder / "instances-aws.json").write_text(document, encoding="utf-8")

    return prepare


def _aws_overlay(currency: str, on_demand: str) -> str:
    price = {"region": "us-east-1", "currency": currency, "on_demand_hourly": 1.5,
             "spot_hourly": 0.5, "source": "gpupool catalog refresh 2026-12-02: AWS Price List "
             "API", "as_of": "2026-12-02"}
    document = {"format_version": "1", "source": ["gpupool catalog refresh 2026-12-02"],
                "as_of": "2026-12-02", "cloud": "aws",
                "prices": [{"name": "g6.2xlarge", "price": price}]}
    return json.dumps(document, indent=2).replace("1.5", on_demand)


def _advise(stack: str) -> Callable[[Scene], None]:
    """The advise scenario (tests/advise/scenario.py) served by a real Prometheus."""

    def prepare(scene: Scene) -> None:
        text = {"stack": scenario.STACK, "hami": scenario.HAMI_STACK}[stack]
        (scene.project / f"{stack}.yaml").write_text(text, encoding="utf-8")
        (scene.project / "planned.csv").write_text(PLANNED, encoding="utf-8")
        url = scene.resources.enter_context(
            serving(scenario.series(ADVISE_UNTIL), scene.home.parent / "prometheus"))
        scene.env["GPUPOOL_DOCS_PROMETHEUS"] = url

    return prepare


#: Extra set-up, by a block's first command.
SCENES: dict[str, Callable[[Scene], None]] = {
    "gpupool validate stacks/prod.yaml": _prod,
    "gpupool plan stacks/prod.yaml --base stacks/staging.yaml": _other_stack_base,
    "gpupool simulate stacks/examples/azure-kai-fair.yaml --workload "
    "tests/fixtures/simulate/azure-kai-fair.csv --base HEAD": _simulate_against_head,
    "gpupool simulate stacks/examples/azure-kai-fair.yaml --workload "
    "tests/fixtures/simulate/azure-kai-fair.csv --base HEAD --format markdown":
    _simulate_against_head,
    "gpupool destroy stacks/prod.yaml": _no_passphrase,
    "gpupool plan reviewed.yaml --format json > plan.json": _reviewed,
    "gpupool plan stack.yaml --format json > plan.json": _volcengine,
    "gpupool validate stack.yaml": _overlay(_aws_overlay("EUR", "1.5")),
    "gpupool plan stack.yaml": _overlay(_aws_overlay("USD", "NaN")),
}


def _overcommit(scene: Scene) -> None:
    """The memory-overcommit fixture (tests/advise/overcommit_scenario.py) on a real Prometheus."""
    (scene.project / "overcommit.yaml").write_text(overcommit_scenario.STACK, encoding="utf-8")
    url = scene.resources.enter_context(
        serving(overcommit_scenario.series(), scene.home.parent / "prometheus"))
    scene.env["GPUPOOL_DOCS_PROMETHEUS"] = url


#: Blocks that start with one of these run against the advise scenario's Prometheus.
ADVISE_PREFIXES = {"gpupool advise stack.yaml ": _advise("stack"),
                   "gpupool advise hami.yaml ": _advise("hami"),
                   "gpupool advise overcommit.yaml ": _overcommit}


def prepare(first: str) -> Callable[[Scene], None] | None:
    """The extra set-up of a block whose first command is ``first``, if it needs any."""
    if first in SCENES:
        return SCENES[first]
    for prefix, scene in ADVISE_PREFIXES.items():
        if first.startswith(prefix):
            return scene
    return None


def not_run(command: str) -> str | None:
    """Why ``command`` is shown but not run, or None when it runs."""
    for prefix, reason in NOT_RUN.items():
        if command.startswith(prefix):
            return reason
    return None
