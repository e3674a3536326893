"""The CI templates users copy: GitHub workflows in templates/ci and .pre-commit-hooks.yaml.

Besides their structure, the shell steps are run with bash against a stand-in ``gpupool`` that
exits 0, 1 or 2, and the comment script is run with node against a stand-in GitHub API, so the
exit-code handling and the find-or-edit-by-marker logic are tested as they will execute.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.paths import ROOT, TEMPLATES

PLAN = TEMPLATES / "ci" / "github-plan-comment.yml"
DRIFT = TEMPLATES / "ci" / "github-drift.yml"
HOOKS = ROOT / ".pre-commit-hooks.yaml"

STACK = "stacks/prod.yaml"
MARKER = f"<!-- gpupool-plan: {STACK} -->"


# --------------------------------------------------------------------------- helpers


def load_workflow(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text())
    assert isinstance(data, dict)
    # YAML 1.1 (PyYAML) reads the bare key `on` as True; GitHub reads it as "on".
    if True in data:
        data["on"] = data.pop(True)
    return data


def only_job(workflow: dict[str, Any]) -> dict[str, Any]:
    (job,) = workflow["jobs"].values()
    return job


def step_named(job: dict[str, Any], name: str) -> dict[str, Any]:
    matches = [s for s in job["steps"] if s.get("name") == name]
    assert len(matches) == 1, f"no single step named {name!r}"
    return matches[0]


def step_using(job: dict[str, Any], action: str) -> dict[str, Any]:
    matches = [s for s in job["steps"] if s.get("uses", "").startswith(action + "@")]
    assert len(matches) == 1, f"no single step using {action}"
    return matches[0]


def fake_gpupool(tmp_path: Path) -> Path:
    """A `gpupool` on PATH that records its arguments and exits with $FAKE_EXIT."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "gpupool"
    script.write_text(
        "#!/usr/bin/env bash\n"
        'printf "%s\\n" "$@" > "$FAKE_ARGS"\n'
        'if [ "$FAKE_EXIT" = 0 ] || [ "$FAKE_EXIT" = 2 ]; then\n'
        '  printf "### gpupool %s\\n\\nPlan: 1 to add, 0 to change, 0 to destroy.\\n" "$1"\n'
        "fi\n"
        'echo "progress: reading $2" >&2\n'
        'if [ "$FAKE_EXIT" = 1 ]; then echo "error: state backend unreachable" >&2; fi\n'
        'exit "$FAKE_EXIT"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return bin_dir


def run_step(
    step: dict[str, Any], env: dict[str, str], tmp_path: Path, fake_exit: int
) -> tuple[subprocess.CompletedProcess[str], dict[str, str], str, list[str]]:
    """Run a `run:` step the way GitHub runs `shell: bash` steps."""
    assert step.get("shell", "bash") == "bash"
    work = tmp_path / f"work-{fake_exit}"
    work.mkdir()
    output, summary, args = work / "output", work / "summary", work / "args"
    output.touch()
    summary.touch()
    script = work / "step.sh"
    script.write_text(step["run"])
    full_env = {
        "PATH": f"{fake_gpupool_dir(tmp_path)}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        "FAKE_EXIT": str(fake_exit),
        "FAKE_ARGS": str(args),
        **env,
    }
    result = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=work,
        env=full_env,
        capture_output=True,
        text=True,
        check=False,
    )
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    recorded = args.read_text().splitlines() if args.exists() else []
    return result, outputs, summary.read_text(), recorded


def fake_gpupool_dir(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "bin"
    return bin_dir if bin_dir.exists() else fake_gpupool(tmp_path)


def evaluate_if(expression: str, exitcode: str) -> bool:
    """Evaluate the `if:` of the final step for one exit code (only the operators it uses)."""
    assert set(re.findall(r"[a-z_.]+\.[a-z_.]+", expression)) == {"steps.plan.outputs.exitcode"}
    python = (
        expression.replace("steps.plan.outputs.exitcode", repr(exitcode))
        .replace("&&", " and ")
        .replace("||", " or ")
    )
    assert re.fullmatch(r"[\s'0-9!=andor]+", python), python
    # eval is safe here: the expression was just checked to hold only literals and operators
    return bool(eval(python))


def expressions_in_run_scripts(workflow: dict[str, Any]) -> list[str]:
    found = []
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            found += re.findall(r"\$\{\{(.*?)\}\}", step.get("run", ""))
    return [e.strip() for e in found]


# --------------------------------------------------------------------------- installing gpupool

INSTALL = "Install gpupool (the version GPUPOOL_PIP_SPEC pins)"


def assert_installs_the_pinned_gpupool(workflow: dict[str, Any]) -> None:
    """gpupool is not on PyPI: the workflow installs what GPUPOOL_PIP_SPEC names, a placeholder
    until the user pins a git URL at a tag or commit (or a folder of the same repository)."""
    spec = workflow["env"]["GPUPOOL_PIP_SPEC"]
    assert re.fullmatch(
        r"gpupool(\[[a-z,]+\])? @ git\+https://github\.com/REPLACE-ME/gpupool@REPLACE-ME\S*", spec
    )
    job = only_job(workflow)
    assert not any("pip install gpupool" in s.get("run", "") for s in job["steps"])
    assert 'python -m pip install "$GPUPOOL_PIP_SPEC"' in step_named(job, INSTALL)["run"]


def python_installing_into(tmp_path: Path, target: Path) -> Path:
    """A `python` on PATH that runs the real one, adding `--no-deps --target` to its arguments,
    so the template's own `python -m pip install ...` installs gpupool alone into ``target``
    (its dependencies are this test run's)."""
    bin_dir = tmp_path / "pybin"
    bin_dir.mkdir()
    shim = bin_dir / "python"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@" --no-deps --target "{target}"\n')
    shim.chmod(0o755)
    return bin_dir


@pytest.mark.parametrize("workflow_path", [PLAN, DRIFT], ids=["plan", "drift"])
def test_install_step_refuses_the_placeholder(workflow_path: Path, tmp_path: Path) -> None:
    step = step_named(only_job(load_workflow(workflow_path)), INSTALL)
    spec = load_workflow(workflow_path)["env"]["GPUPOOL_PIP_SPEC"]
    result, _, _, _ = run_step(step, {"GPUPOOL_PIP_SPEC": spec}, tmp_path, 0)
    assert result.returncode == 1
    assert "::error title=gpupool::set GPUPOOL_PIP_SPEC" in result.stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_install_step_installs_gpupool_from_a_pinned_git_url(tmp_path: Path) -> None:
    """The plan template's install step, run with the git form pointing at a clone of this
    repository at its commit, installs a gpupool whose `validate` works (schema included)."""
    clone = tmp_path / "gpupool-src"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(clone)], check=True)
    commit = subprocess.run(
        ["git", "-C", str(clone), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    # file://localhost/: pip's PEP 508 parser (packaging) refuses a file URL without a host
    spec = f"gpupool[node] @ git+file://localhost{clone}@{commit}"
    target = tmp_path / "site"
    step = step_named(only_job(load_workflow(PLAN)), INSTALL)
    path = f"{python_installing_into(tmp_path, target)}{os.pathsep}{os.environ['PATH']}"
    result, _, _, _ = run_step(step, {"GPUPOOL_PIP_SPEC": spec, "PATH": path}, tmp_path, 0)
    assert result.returncode == 0, result.stderr[-3000:]
    assert (target / "gpupool" / "_data" / "schemas" / "gpupool.schema.json").is_file()
    validated = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpupool",
            "validate",
            str(ROOT / "stacks/examples/onprem-hami.yaml"),
        ],
        env={**os.environ, "PYTHONPATH": str(target)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert validated.returncode == 0, validated.stderr
    assert validated.stdout.endswith("onprem-hami.yaml: valid\n")
    # the gpupool that ran is the installed one, not this checkout
    where = subprocess.run(
        [sys.executable, "-c", "import gpupool; print(gpupool.__file__)"],
        env={**os.environ, "PYTHONPATH": str(target)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(target))


# --------------------------------------------------------------------------- plan workflow


def test_plan_workflow_runs_on_pull_requests_with_full_history() -> None:
    workflow = load_workflow(PLAN)
    assert "pull_request" in workflow["on"]
    assert workflow["permissions"]["pull-requests"] == "write"
    job = only_job(workflow)
    assert job["runs-on"] == "ubuntu-latest"
    assert job["env"]["BASE_REF"] == "${{ github.base_ref }}"
    assert job["env"]["STACK_FILE"] == "${{ matrix.stack }}"
    assert STACK in job["strategy"]["matrix"]["stack"]
    assert step_using(job, "actions/checkout")["with"]["fetch-depth"] == 0
    assert "python-version" in step_using(job, "actions/setup-python")["with"]
    assert_installs_the_pinned_gpupool(workflow)
    for step in job["steps"]:
        assert ("uses" in step) != ("run" in step), step


def test_plan_command_line() -> None:
    run = step_named(only_job(load_workflow(PLAN)), "gpupool plan")["run"]
    assert (
        'gpupool plan "$STACK_FILE" --base "origin/${BASE_REF}" --format markdown '
        "--detailed-exitcode > plan.md" in run
    )


@pytest.mark.parametrize(("code", "fails_job"), [(0, False), (2, False), (1, True), (3, True)])
def test_plan_exit_codes(tmp_path: Path, code: int, fails_job: bool) -> None:
    job = only_job(load_workflow(PLAN))
    env = {"STACK_FILE": STACK, "BASE_REF": "main"}
    result, outputs, summary, args = run_step(step_named(job, "gpupool plan"), env, tmp_path, code)
    # the plan step itself never fails, so the comment step always runs
    assert result.returncode == 0, result.stderr
    assert outputs["exitcode"] == str(code)
    assert args == [
        "plan",
        STACK,
        "--base",
        "origin/main",
        "--format",
        "markdown",
        "--detailed-exitcode",
    ]
    assert f"## gpupool plan: `{STACK}`" in summary
    if fails_job:
        assert "::error title=gpupool plan::" in result.stdout
        assert "Plan:" not in summary
    else:
        assert "Plan: 1 to add, 0 to change, 0 to destroy." in summary
        assert "::error" not in result.stdout
    final = job["steps"][-1]
    assert evaluate_if(final["if"], str(code)) is fails_job
    assert "exit 1" in final["run"]


def test_comment_step_reads_the_plan_exit_code() -> None:
    step = step_using(only_job(load_workflow(PLAN)), "actions/github-script")
    assert step["env"]["PLAN_EXIT"] == "${{ steps.plan.outputs.exitcode }}"
    script = step["with"]["script"]
    assert "`<!-- gpupool-plan: ${key} -->`" in script
    for call in ("listComments", "updateComment", "createComment"):
        assert f"github.rest.issues.{call}" in script


def test_no_untrusted_expression_is_pasted_into_a_shell_script() -> None:
    for path in (PLAN, DRIFT):
        for expression in expressions_in_run_scripts(load_workflow(path)):
            assert expression.startswith("steps."), (path.name, expression)


NODE_HARNESS = r"""
const fs = require('fs');
const script = fs.readFileSync(process.env.SCRIPT_FILE, 'utf8');
const existing = JSON.parse(process.env.EXISTING);
const calls = [];
const github = {
  paginate: async (fn, params) => { calls.push(['paginate', fn.name, params]); return existing; },
  rest: { issues: {
    listComments: async function listComments() { throw new Error('use paginate'); },
    updateComment: async (p) => {
      calls.push(['updateComment', p]);
      return { data: { id: p.comment_id } };
    },
    createComment: async (p) => { calls.push(['createComment', p]); return { data: { id: 999 } }; },
  } },
};
const context = {
  repo: { owner: 'acme', repo: 'gpu-stacks' },
  payload: { pull_request: { number: 42 } },
};
const core = { info: () => {} };
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
new AsyncFunction('require', 'github', 'context', 'core', script)(require, github, context, core)
  .then(() => process.stdout.write(JSON.stringify(calls)))
  .catch((e) => { console.error(e); process.exit(1); });
"""


def run_comment_script(
    tmp_path: Path, existing: list[dict[str, Any]], code: str, plan: str = "### plan\n",
    stack: str = STACK,
) -> list[Any]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    step = step_using(only_job(load_workflow(PLAN)), "actions/github-script")
    work = tmp_path / "comment"
    work.mkdir(exist_ok=True)
    (work / "script.js").write_text(step["with"]["script"])
    (work / "harness.js").write_text(NODE_HARNESS)
    (work / "plan.md").write_text(plan)
    (work / "plan.err").write_text("error: state backend unreachable\n")
    env = {
        "PATH": os.environ["PATH"],
        "SCRIPT_FILE": str(work / "script.js"),
        "EXISTING": json.dumps(existing),
        "STACK_FILE": stack,
        "PLAN_EXIT": code,
    }
    result = subprocess.run(
        [node, str(work / "harness.js")],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


BOT = {"type": "Bot", "login": "github-actions[bot]"}
HUMAN = {"type": "User", "login": "reviewer"}


def test_first_run_creates_a_comment_that_starts_with_the_marker(tmp_path: Path) -> None:
    calls = run_comment_script(tmp_path, [], "2")
    assert calls[0][:2] == ["paginate", "listComments"]
    assert calls[0][2] == {
        "owner": "acme",
        "repo": "gpu-stacks",
        "issue_number": 42,
        "per_page": 100,
    }
    (kind, params) = calls[1]
    assert kind == "createComment"
    assert params["issue_number"] == 42
    assert params["body"] == f"{MARKER}\n### plan\n"
    assert len(calls) == 2


def test_later_runs_edit_the_comment_found_by_its_marker(tmp_path: Path) -> None:
    existing = [
        {"id": 1, "user": HUMAN, "body": f"quoting the bot:\n{MARKER}\nold"},
        {"id": 2, "user": BOT, "body": "<!-- gpupool-plan: stacks/staging.yaml -->\nother stack"},
        {"id": 3, "user": BOT, "body": f"{MARKER}\nold plan"},
        {"id": 4, "user": BOT, "body": None},
    ]
    calls = run_comment_script(tmp_path, existing, "0")
    assert [c[0] for c in calls] == ["paginate", "updateComment"]
    assert calls[1][1] == {
        "owner": "acme",
        "repo": "gpu-stacks",
        "comment_id": 3,
        "body": f"{MARKER}\n### plan\n",
    }


def test_comments_of_people_and_of_other_stacks_are_left_alone(tmp_path: Path) -> None:
    existing = [
        {"id": 1, "user": HUMAN, "body": f"{MARKER}\npasted by hand"},
        {"id": 2, "user": BOT, "body": "<!-- gpupool-plan: stacks/staging.yaml -->\nother"},
    ]
    calls = run_comment_script(tmp_path, existing, "2")
    assert [c[0] for c in calls] == ["paginate", "createComment"]


def test_a_failed_plan_is_commented_with_its_error(tmp_path: Path) -> None:
    calls = run_comment_script(tmp_path, [], "1")
    body = calls[1][1]["body"]
    assert body.startswith(f"{MARKER}\n### gpupool plan failed for `{STACK}` (exit 1)")
    assert "error: state backend unreachable" in body


def test_a_huge_plan_is_truncated_below_githubs_comment_limit(tmp_path: Path) -> None:
    calls = run_comment_script(tmp_path, [], "2", plan="x" * 200_000)
    body = calls[1][1]["body"]
    assert len(body) < 65536
    assert body.startswith(MARKER) and "Truncated" in body


def _real_plan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
               capsys: pytest.CaptureFixture[str]) -> str:
    """gpupool's own markdown for a stack file at ``STACK``, as the plan step runs it."""
    from gpupool.cli import run

    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "tests" / "fixtures" / "plan" / "instance-type" / "desired.yaml",
                tmp_path / STACK)  # fmt: skip
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert run(["plan", STACK, "--format", "markdown"]) == 0
    return capsys.readouterr().out


def test_the_comment_has_one_marker_the_one_gpupool_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """gpupool's markdown and the workflow share one marker: the comment carries it once.

    Issue 35: the markdown named the stack and the workflow the file, so every comment had two
    hidden lines and a failed plan's comment was a second one.
    """
    plan = _real_plan(tmp_path, monkeypatch, capsys)
    assert plan.startswith(MARKER + "\n")
    calls = run_comment_script(tmp_path, [], "2", plan=plan)
    body = calls[1][1]["body"]
    assert body == plan and body.count("<!-- gpupool-plan") == 1
    # a failed plan's comment is then edited by the next plan, and the other way round
    failed = run_comment_script(tmp_path, [{"id": 7, "user": BOT, "body": body}], "1")
    assert [c[0] for c in failed] == ["paginate", "updateComment"]
    again = run_comment_script(tmp_path, [{"id": 7, "user": BOT, "body": failed[1][1]["body"]}],
                               "2", plan=plan)  # fmt: skip
    assert again[1][0] == "updateComment" and again[1][1]["comment_id"] == 7


@pytest.mark.parametrize("name", ["stacks/a-->b.yaml", "stacks/x--!>y <!-- z%41.yaml",
                                  "stacks/new\nline.yaml", "stacks/é ü.yaml",
                                  "stacks/\u202ebidi\x9b31m\u2028.yaml", "s/##[error]x#.yaml"])
def test_the_workflow_writes_the_marker_gpupool_writes_for_any_file_name(
    tmp_path: Path, name: str
) -> None:
    """A failed plan's comment (written by the workflow alone) starts with gpupool's marker."""
    from gpupool.views.plan_markdown import marker

    calls = run_comment_script(tmp_path, [], "1", stack=name)
    first = calls[1][1]["body"].split("\n")[0]
    assert first == marker(name)
    assert first.count("-->") == 1 and first.endswith(" -->") and "<!--" not in first[4:]
    assert "##[" not in first


# --------------------------------------------------------------------------- drift workflow


def test_drift_workflow_runs_on_schedule_and_by_hand() -> None:
    workflow = load_workflow(DRIFT)
    triggers = workflow["on"]
    assert set(triggers) == {"schedule", "workflow_dispatch"}
    (entry,) = triggers["schedule"]
    assert len(entry["cron"].split()) == 5
    job = only_job(workflow)
    assert job["env"]["STACK_FILE"] == "${{ matrix.stack }}"
    assert_installs_the_pinned_gpupool(workflow)
    run = step_named(job, "gpupool drift")["run"]
    assert 'gpupool drift "$STACK_FILE" --format markdown > drift.md' in run


@pytest.mark.parametrize(
    ("code", "rc", "message"),
    [
        (0, 0, "No drift in stacks/prod.yaml."),
        (2, 2, "::error title=gpupool drift::stacks/prod.yaml has drifted"),
        (1, 1, "::error title=gpupool drift::could not tell whether stacks/prod.yaml drifted"),
    ],
)
def test_drift_exit_codes(tmp_path: Path, code: int, rc: int, message: str) -> None:
    step = step_named(only_job(load_workflow(DRIFT)), "gpupool drift")
    result, _, summary, args = run_step(step, {"STACK_FILE": STACK}, tmp_path, code)
    assert result.returncode == rc, result.stderr
    assert message in result.stdout
    assert args == ["drift", STACK, "--format", "markdown"]
    assert summary.startswith(f"## gpupool drift: `{STACK}`")
    if code == 2:
        assert "Plan: 1 to add" in summary  # the report itself lands in the job summary
    if code == 1:
        assert "could not tell" in summary and "state backend unreachable" in summary


# --------------------------------------------------------------------------- pre-commit

# pre-commit 4.x manifest keys (pre_commit/clientlib.py MANIFEST_HOOK_DICT)
PRE_COMMIT_KEYS = {
    "minimum_pre_commit_version",
    "id",
    "name",
    "entry",
    "language",
    "alias",
    "files",
    "exclude",
    "types",
    "types_or",
    "exclude_types",
    "additional_dependencies",
    "args",
    "always_run",
    "fail_fast",
    "pass_filenames",
    "description",
    "language_version",
    "log_file",
    "require_serial",
    "stages",
    "verbose",
}


def test_pre_commit_hook_manifest() -> None:
    hooks = yaml.safe_load(HOOKS.read_text())
    assert isinstance(hooks, list)
    (hook,) = hooks
    assert set(hook) <= PRE_COMMIT_KEYS
    assert {"id", "name", "entry", "language"} <= set(hook)
    assert hook["id"] == "gpupool-validate"
    assert hook["entry"] == "gpupool validate"
    assert hook["language"] == "python"
    assert hook["files"] == r"^stacks/.*\.ya?ml$"
    files = re.compile(hook["files"])
    for path in ("stacks/prod.yaml", "stacks/dev.yml", "stacks/team/ml.yaml"):
        assert files.search(path), path
    for path in ("stacks/README.md", "examples/prod.yaml", "stacks/prod.yaml.bak"):
        assert not files.search(path), path


def test_pre_commit_accepts_the_manifest() -> None:
    clientlib = pytest.importorskip("pre_commit.clientlib")
    (hook,) = clientlib.load_manifest(str(HOOKS))
    assert hook["id"] == "gpupool-validate"
    assert hook["pass_filenames"] is True
