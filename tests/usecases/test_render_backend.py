"""The rendered README names the state gpupool uses, from the folder it was rendered in.

gpupool resolves a relative ``file://`` backend from the stack file's folder
(``usecases.engine.backend_url``); Pulumi resolves one from its working directory (pulumi/docs,
content/docs/iac/guides/basics/using-a-diy-backend.md: "A relative file://./x is relative to the
working directory"). The README tells the user to run ``pulumi`` from the rendered folder, so the
path it shows, taken from there, must be gpupool's state folder.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpupool.model import Stack
from gpupool.spec.validate import validate_file
from gpupool.usecases import engine
from gpupool.usecases.render import render
from tests import paths

EXAMPLE = paths.EXAMPLES / "aws-inference-l4.yaml"


def load_stack(path: Path) -> Stack:
    stack = validate_file(path).stack
    assert stack is not None
    return stack


def _shown(readme: Path) -> str:
    text = readme.read_text(encoding="utf-8")
    [url] = re.findall(r"export PULUMI_BACKEND_URL='([^']*)'", text)
    return url


def _stack_file(folder: Path, backend: str | None) -> Path:
    folder.mkdir(parents=True)
    target = folder / "stack.yaml"
    text = EXAMPLE.read_text(encoding="utf-8")
    if backend is not None:
        text = text.replace("\ncluster:\n", f"\nstate: {{backend: '{backend}'}}\ncluster:\n", 1)
    target.write_text(text, encoding="utf-8")
    return target


@pytest.mark.parametrize("backend", [None, "file://infra/state"])
@pytest.mark.parametrize("out", ["elsewhere/deep/program", None])
def test_the_readme_backend_from_the_rendered_folder_is_gpupools_state(
    tmp_path: Path, backend: str | None, out: str | None
) -> None:
    stack_file = _stack_file(tmp_path / "repo", backend)
    stack = load_stack(stack_file)
    result = render(stack_file, stack, None if out is None else str(tmp_path / out))
    shown = _shown(result.out_dir / "README.md")
    assert shown.startswith("file://./")
    # as Pulumi reads it: relative to the working directory, the rendered folder
    from_there = (result.out_dir / shown[len("file://"):]).resolve()
    gpupools = Path(engine.backend_url(stack_file, stack)[len("file://"):])
    assert from_there == gpupools
    want = ".gpupool/state" if backend is None else "infra/state"
    assert gpupools == stack_file.parent.resolve() / want


@pytest.mark.parametrize("backend", ["s3://bucket/gpupool", "file:///srv/state", "file://~/state"])
def test_a_backend_that_names_its_place_itself_is_shown_as_written(
    tmp_path: Path, backend: str
) -> None:
    stack_file = _stack_file(tmp_path / "repo", backend)
    result = render(stack_file, load_stack(stack_file), str(tmp_path / "out"))
    assert _shown(result.out_dir / "README.md") == backend
