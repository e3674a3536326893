"""The command line as a package of command modules (issue 36 item 3, issue 35 item 10).

* ``gpupool --help`` reads the table of commands and imports no command's module, nor the
  catalog or a use case; a command imports its own module only;
* every command's help page says what question it answers and shows an example;
* the simulation settings are resolved in one place, by field name: a flag, else the stack's
  ``simulation`` block, else the default; each knob's flag is a field of ``Settings``;
* the workload is found, read and checked by the use case, which prints nothing;
* ``--require``'s converter gives the flag's one-line usage error before the stack is read.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpupool.cli import options, run, types
from gpupool.cli.exits import UsageError
from gpupool.cli.parser import COMMANDS
from gpupool.errors import InputError
from gpupool.model import Simulation
from gpupool.simulate import workload as reader
from gpupool.simulate.engine import Settings
from gpupool.usecases.simulate import prepare, resolve
from gpupool.usecases.validate import load_stack
from tests.cli.test_cli_simulate import HEADER, ROWS, STACK
from tests.paths import ROOT


def _modules_after(argv: list[str]) -> set[str]:
    code = ("import sys\nfrom gpupool.cli import run\n"
            f"run({argv!r})\nprint(' '.join(sorted(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return set(done.stdout.splitlines()[-1].split())


def test_top_level_help_imports_no_command_nor_the_catalog() -> None:
    loaded = _modules_after(["--help"])
    assert "gpupool.cli.parser" in loaded  # the table was read
    heavy = {m for m in loaded if m.startswith(("gpupool.cli.commands.", "gpupool.catalog",
                                                 "gpupool.usecases", "gpupool.clouds"))}
    assert heavy == set()


def test_a_command_imports_its_own_module_only() -> None:
    loaded = _modules_after(["validate", "--help"])
    commands = {m for m in loaded if m.startswith("gpupool.cli.commands.")}
    assert commands == {"gpupool.cli.commands.validate"}


def _page(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert run([*argv, "--help"]) == 0
    return capsys.readouterr().out.split("\n\n")


@pytest.mark.parametrize("argv", [[name] for name in COMMANDS if name != "node"]
                         + [["node", "inspect"]], ids=" ".join)
def test_every_help_page_has_a_description_and_an_example(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    paragraphs = _page(argv, capsys)
    assert paragraphs[0].startswith(f"usage: gpupool {' '.join(argv)} ")
    description = " ".join(paragraphs[1].split())
    assert not description.startswith(("positional arguments:", "options:"))
    assert len(description) > 40 and description.endswith(".")
    examples = paragraphs[-1].rstrip("\n").splitlines()
    assert examples[0] == "examples:" and len(examples) > 1
    assert all(line.startswith("  gpupool ") for line in examples[1:])
    assert any(line.startswith(f"  gpupool {' '.join(argv)}") for line in examples[1:])


def test_the_knobs_are_settings_fields_and_their_flags_land_there() -> None:
    names = {f.name for f in dataclasses.fields(Settings)}
    assert set(options.KNOBS) <= names
    parser = argparse.ArgumentParser()
    for name in options.KNOBS:
        options.knob(parser, name)
    args = parser.parse_args(["--seed", "3", "--spot-shortage", "0.5"])
    assert options.simulation_flags(args) == {"seed": 3, "spot_shortage": 0.5}
    assert options.simulation_flags(argparse.Namespace(workload=None)) == {}  # plan, advise


def test_resolve_takes_the_flag_else_the_block_else_the_default() -> None:
    assert resolve(None, {}) == Settings()
    block = Simulation("jobs.csv", None, seed=7, spot_interruptions_per_hour=0.5,
                       spot_shortage=0.25)
    from_block = resolve(block, {})
    assert (from_block.seed, from_block.spot_interruptions_per_hour,
            from_block.spot_shortage) == (7, 0.5, 0.25)
    flagged = resolve(block, {"seed": 8, "scale_up_seconds": 60.0, "spot_shortage": None})
    assert (flagged.seed, flagged.scale_up_seconds, flagged.spot_shortage) == (8, 60.0, 0.25)
    # every setting the block may state reaches the run under its own name
    shared = {f.name for f in dataclasses.fields(Simulation)} & {
        f.name for f in dataclasses.fields(Settings)}
    assert shared == {"seed", "spot_interruptions_per_hour", "spot_shortage"}


def _stack(folder: Path, block: str) -> Path:
    text = Path(STACK).read_text(encoding="utf-8")
    path = folder / "stack.yaml"
    path.write_text(text[:text.index("\nsimulation:") + 1] + block, encoding="utf-8")
    return path


def test_prepare_finds_reads_and_checks_the_workload(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "jobs.csv").write_text(HEADER + "\n".join(ROWS) + "\n", encoding="utf-8")
    file = _stack(tmp_path, "simulation: {workload: jobs.csv, seed: 5}\n")
    stack = load_stack(str(file)).stack
    assert stack is not None
    prepared = prepare(file, stack, path=None, fmt=None, flags={"seed": 9})
    assert prepared is not None and prepared.path == tmp_path / "jobs.csv"
    assert len(prepared.workload.jobs) == len(ROWS) and prepared.errors == 0
    assert prepared.settings.seed == 9
    assert capsys.readouterr() == ("", "")  # the use case prints nothing
    bare = _stack(tmp_path, "")
    no_block = load_stack(str(bare)).stack
    assert no_block is not None
    assert prepare(bare, no_block, path=None, fmt=None, flags={}) is None
    gone = _stack(tmp_path, "simulation: {workload: gone.csv}\n")
    named = load_stack(str(gone)).stack
    assert named is not None
    with pytest.raises(InputError, match=r"gone\.csv, which does not exist; fix the path, or X$"):
        prepare(gone, named, path=None, fmt=None, flags={}, instead=", or X")


def test_the_workload_formats_are_the_readers() -> None:
    assert options.WORKLOAD_FORMATS == reader.FORMATS


def test_the_sources_converter_says_the_flag_and_what_it_takes() -> None:
    read = types.sources("gpupool drift", "--require", ("cloud", "node"))
    assert read("node,,cloud") == {"cloud", "node"}
    with pytest.raises(UsageError) as caught:
        read("cloud,gpu")
    assert str(caught.value) == "gpupool drift: --require takes cloud, node; not ['gpu']"


def test_a_bad_value_is_a_usage_error_before_the_stack_is_read(
    capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["drift", "no-such-stack.yaml", "--require", "gpu"]) == 64
    err = capsys.readouterr().err
    assert err.startswith("gpupool drift: --require takes cloud, cluster, node; not ['gpu']")
    assert "no-such-stack" not in err
