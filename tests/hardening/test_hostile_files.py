"""Hostile folders: render, the applied record and the stack lock write only what is gpupool's.

Issue 19, items 10 to 12. ``render --out`` into a folder that holds other files (a project's
README.md and ``__main__.py``, a root file system) is refused before anything is written; a
planted ``.gpupool-files`` index is checked whole before a file it lists is removed, and can list
only files render writes; a symbolic link at ``.gpupool``, ``.gpupool/build/<stack>``,
``.gpupool/applied``, ``.gpupool/locks`` or the lock file is refused, never followed, so nothing
outside the stack's folder is written, created or truncated.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpupool import assemble, record, render
from gpupool.cli import run
from gpupool.errors import StateError
from gpupool.graph import ResourceGraph
from gpupool.lock import lock_path, stack_lock
from gpupool.render import RenderError
from tests.paths import EXAMPLES, ROOT
from tests.stacks import load_stack

EXAMPLE = EXAMPLES / "aws-inference-l4.yaml"
STACK = "inference-prod"  # metadata.name of EXAMPLE


def tree(root: Path) -> dict[str, bytes | str]:
    """Every entry below ``root``: file bytes, or where a link points, or 'dir'."""
    out: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = f"-> {os.readlink(path)}"
        elif path.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = path.read_bytes()
    return out


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder with a stack file, as a repository holds one."""
    folder = tmp_path / "repo"
    folder.mkdir()
    shutil.copy(EXAMPLE, folder / "stack.yaml")
    return folder


# -- 10: an output folder that holds files gpupool did not write ---------------------------------


def test_render_into_a_project_folder_is_refused_and_overwrites_nothing(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``render --out .`` in a project must not replace its README.md and __main__.py."""
    (project / "README.md").write_text("# my project\n", encoding="utf-8")
    (project / "__main__.py").write_text("print('my program')\n", encoding="utf-8")
    before = tree(project)
    monkeypatch.chdir(project)
    assert run(["render", "--out", ".", "stack.yaml"]) == 1
    err = capsys.readouterr().err
    [line] = err.strip().splitlines()
    assert line.startswith("error: refusing to render into ") and "did not write" in line, line
    assert tree(project) == before


def test_render_into_a_root_file_system_is_refused(
    tmp_path: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--out /``: a folder of system files without gpupool's index is refused whole.

    The real ``/`` is not used: a folder laid out like one stands in for it, with no file whose
    name render writes, so only the refusal of a foreign folder can stop the render.
    """
    root = tmp_path / "root"
    for name in ("etc", "usr", "var"):
        (root / name).mkdir(parents=True)
    (root / "etc" / "hostname").write_text("node-1\n", encoding="utf-8")
    before = tree(root)
    assert run(["render", "--out", str(root), str(project / "stack.yaml")]) == 1
    assert "did not write" in capsys.readouterr().err
    assert tree(root) == before


def test_render_into_a_rendered_folder_refuses_a_file_it_does_not_list(tmp_path: Path) -> None:
    """A file render would write that its index does not list is the user's: not overwritten."""
    stack = load_stack(EXAMPLE)
    graph = assemble.build(stack)
    out = tmp_path / "out"
    render.render(stack, graph, out)
    index = out / ".gpupool-files"
    index.write_text(
        "".join(f"{rel}\n" for rel in index.read_text(encoding="utf-8").splitlines()
                if rel != "README.md"),
        encoding="utf-8",
    )  # fmt: skip
    (out / "README.md").write_text("mine\n", encoding="utf-8")
    with pytest.raises(RenderError, match=r"refusing to overwrite .*README\.md"):
        render.render(stack, graph, out)
    assert (out / "README.md").read_text(encoding="utf-8") == "mine\n"
    # what gpupool wrote before is rewritten as usual, and other files are left alone
    (out / "README.md").unlink()
    (out / "notes.txt").write_text("mine\n", encoding="utf-8")
    render.render(stack, graph, out)
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine\n"


def test_new_and_empty_folders_are_rendered_into(tmp_path: Path) -> None:
    stack = load_stack(EXAMPLE)
    graph = assemble.build(stack)
    (tmp_path / "empty").mkdir()
    for out in (tmp_path / "empty", tmp_path / "new" / "deep"):
        result = render.render(stack, graph, out)
        assert (out / "__main__.py").is_file() and result.out_dir == out.resolve()
        render.render(stack, graph, out)  # and again: the folder is gpupool's now


# -- 11: a planted index ----------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["../victim.txt", "/etc/passwd", "notes.txt", "link/x.yaml",
                                 "manifests/../../victim.txt", ".gpupool-files"])  # fmt: skip
def test_a_planted_index_removes_nothing_when_any_line_is_refused(
    tmp_path: Path, bad: str
) -> None:
    """Every line is checked before the first removal; only files render writes may be listed."""
    stack = load_stack(EXAMPLE)
    graph = assemble.build(stack)
    out = tmp_path / "out"
    render.render(stack, graph, out)
    (tmp_path / "victim.txt").write_text("keep", encoding="utf-8")
    (out / "notes.txt").write_text("keep", encoding="utf-8")
    stale = out / "manifests" / "gone.yaml"  # listed first: a render would remove it
    stale.write_text("rendered once", encoding="utf-8")
    index = out / ".gpupool-files"
    index.write_text(f"manifests/gone.yaml\n{bad}\n" + index.read_text(encoding="utf-8"),
                     encoding="utf-8")  # fmt: skip
    before = tree(tmp_path)
    with pytest.raises(RenderError, match=r"refusing to write: the file index .* line 2 names"):
        render.render(stack, graph, out)
    assert tree(tmp_path) == before


def test_an_index_that_is_a_fifo_is_refused(tmp_path: Path, project: Path) -> None:
    """A FIFO where the index goes must not block render (run in a child, so a hang fails)."""
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / ".gpupool-files")
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "gpupool", "render", "--out", str(out),
             str(project / "stack.yaml")],
            cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail("render blocked on a FIFO index")
    assert proc.returncode == 1 and "refusing to use the file index" in proc.stderr, proc


# -- 12: links where gpupool writes ---------------------------------------------------------------


@pytest.mark.parametrize("command", [["render"], ["preview"], ["up", "--yes"]])
@pytest.mark.parametrize("link", [".gpupool", ".gpupool/build", f".gpupool/build/{STACK}"])
def test_render_never_writes_through_a_link_in_the_build_folder(
    tmp_path: Path, project: Path, link: str, command: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A link planted in ``.gpupool/build/<stack>`` (a pull request can add one) is refused.

    ``preview`` and ``up`` render there first, before they look for the Pulumi CLI.
    """
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    planted = project / link
    planted.parent.mkdir(parents=True, exist_ok=True)
    planted.symlink_to(elsewhere, target_is_directory=True)
    assert run([*command, str(project / "stack.yaml")]) == 1
    err = capsys.readouterr().err
    # up takes the stack lock first: .gpupool/locks is refused before the build folder
    assert "is a symbolic link; gpupool does not follow links" in err, err
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("link", [".gpupool", ".gpupool/applied"])
def test_the_applied_record_is_never_written_or_read_through_a_link(
    tmp_path: Path, link: str
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    stack_file = tmp_path / "repo" / "stack.yaml"
    planted = stack_file.parent / link
    planted.parent.mkdir(parents=True)
    planted.symlink_to(elsewhere, target_is_directory=True)
    path = record.record_path(stack_file, STACK)
    with pytest.raises(StateError, match="symbolic link"):
        record.write_applied(path, ResourceGraph(STACK, "aws", ()))
    assert list(elsewhere.rglob("*")) == []
    (elsewhere / "applied").mkdir()
    (elsewhere / f"{STACK}.json").write_text("{}", encoding="utf-8")
    (elsewhere / "applied" / f"{STACK}.json").write_text("{}", encoding="utf-8")
    with pytest.raises(StateError, match="symbolic link"):
        record.read_applied(path)


def test_a_record_that_is_a_link_is_refused(tmp_path: Path) -> None:
    victim = tmp_path / "victim.json"
    victim.write_text("keep", encoding="utf-8")
    path = record.record_path(tmp_path / "stack.yaml", STACK)
    path.parent.mkdir(parents=True)
    path.symlink_to(victim)
    with pytest.raises(StateError, match="symbolic link"):
        record.write_applied(path, ResourceGraph(STACK, "aws", ()))
    assert victim.read_text(encoding="utf-8") == "keep" and path.is_symlink()


@pytest.mark.parametrize("planted", ["file-link", "hard-link", "dir-link", "state-link"])
def test_the_lock_never_truncates_or_creates_a_file_elsewhere(
    tmp_path: Path, planted: str
) -> None:
    """Taking the lock writes the holder's name into the lock file: never into another file."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    path = lock_path(tmp_path / "repo" / "stack.yaml", STACK)
    if planted == "state-link":
        path.parents[1].parent.mkdir(parents=True)
        path.parents[1].symlink_to(elsewhere, target_is_directory=True)
    elif planted == "dir-link":
        path.parents[1].mkdir(parents=True)
        path.parent.symlink_to(elsewhere, target_is_directory=True)
    else:
        path.parent.mkdir(parents=True)
        if planted == "file-link":
            path.symlink_to(victim)
        else:
            os.link(victim, path)
    with pytest.raises(StateError, match="stack lock"), stack_lock(path, "up"):
        pytest.fail("the lock was taken")
    assert victim.read_text(encoding="utf-8") == "precious"
    assert list(elsewhere.iterdir()) == []


# -- 13: a file:// backend outside the stack's folder ---------------------------------------------


def _with_backend(stack_file: Path, url: str) -> None:
    stack_file.write_text(
        stack_file.read_text(encoding="utf-8") + f"state:\n  backend: {url}\n", encoding="utf-8"
    )


BACKENDS = ["relative", "absolute", "home"]


def _backend(tmp_path: Path, kind: str) -> tuple[str, Path]:
    """The URL and where it lands, for a stack file at ``tmp_path/a/b/repo/stack.yaml``."""
    if kind == "relative":
        return "file://../../outside-state", tmp_path / "a" / "outside-state"
    if kind == "absolute":
        return f"file://{tmp_path / 'absolute-state'}", tmp_path / "absolute-state"
    return "file://~/home-state", Path.home() / "home-state"  # conftest: an empty home


@pytest.mark.parametrize("kind", BACKENDS)
@pytest.mark.parametrize("argv", [["preview"], ["up", "--yes"], ["destroy", "--yes"], ["drift"]])
def test_no_backend_is_created_before_the_cli_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    kind: str, argv: list[str],
) -> None:
    """Check first, create last: without a Pulumi CLI nothing is created outside the folder."""
    stack_file = tmp_path / "a" / "b" / "repo" / "stack.yaml"
    stack_file.parent.mkdir(parents=True)
    shutil.copy(EXAMPLE, stack_file)
    url, lands = _backend(tmp_path, kind)
    _with_backend(stack_file, url)
    empty = tmp_path / "no-pulumi"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert run([*argv, str(stack_file)]) == 1
    err = capsys.readouterr().err
    assert "[state.backend-outside]" in err  # the warning every command prints
    if argv != ["drift"]:
        assert "Pulumi CLI not found" in err
    assert not lands.exists()


@pytest.mark.parametrize("argv", [["destroy", "--yes"], ["drift"]])
def test_destroy_and_drift_create_no_backend_even_with_a_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    """Only preview and up create a stack, and so its backend directory; the others read."""
    from tests import fake_pulumi

    fake_pulumi.install(tmp_path / "bin", monkeypatch)
    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE", "correct horse battery")
    monkeypatch.delenv("FAKE_PULUMI_SCENARIO", raising=False)
    stack_file = tmp_path / "a" / "b" / "repo" / "stack.yaml"
    stack_file.parent.mkdir(parents=True)
    shutil.copy(EXAMPLE, stack_file)
    url, lands = _backend(tmp_path, "relative")
    _with_backend(stack_file, url)
    run([*argv, str(stack_file)])
    assert not lands.exists()
    assert run(["preview", str(stack_file)]) == 0  # preview creates it, once the CLI is found
    assert (lands / ".pulumi").is_dir()
