"""No credential, token, kubeconfig content or passphrase ever leaves gpupool.

Recognisable fake secrets are put in the environment (the passphrase and the usual cloud
credential variables) and in a kubeconfig that ``KUBECONFIG`` points at. Then every command runs
(validate; plan, preview and drift in every format; render; up and destroy) against the stand-in
``pulumi``, which echoes every secret value in its events, its output and its errors (as a
careless provider might), through the success path and each failure scenario (an update failing
part way, a program error, missing cloud credentials, a locked stack, a wrong passphrase, no
Pulumi CLI), with and without ``--debug``. No secret may appear in stdout, stderr, any file
gpupool wrote (the rendered program, ``.gpupool/`` records and locks, the state backend) or in
the command lines gpupool gave pulumi.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gpupool.cli import run
from gpupool.secrets import scrub, secret_values
from tests import fake_pulumi
from tests.paths import EXAMPLES

EXAMPLE = EXAMPLES / "aws-inference-l4.yaml"
SECRET_VARS = (
    "PULUMI_CONFIG_PASSPHRASE",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "GOOGLE_CREDENTIALS",
    "AZURE_CLIENT_SECRET",
    "ARM_CLIENT_SECRET",
    "VOLCENGINE_SECRET_KEY",
    "PULUMI_ACCESS_TOKEN",
)


@dataclass
class World:
    """A stack file in a scratch directory, the fake secrets and where they must not appear."""

    root: Path
    stack_file: Path
    secrets: dict[str, str]
    kube_token: str
    outputs: list[tuple[str, str]]  # (what ran, stdout + stderr)

    def values(self) -> dict[str, str]:
        return {**self.secrets, "kubeconfig token": self.kube_token}


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    fake_pulumi.install(tmp_path / "bin", monkeypatch)
    values = {name: f"FAKESECRET-{name}-{secrets.token_hex(8)}" for name in SECRET_VARS}
    values["GOOGLE_CREDENTIALS"] = (
        '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----'
        f'{secrets.token_hex(16)}-----END PRIVATE KEY-----"}}'
    )
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    token = f"FAKESECRET-kube-token-{secrets.token_hex(8)}"
    kube = tmp_path / "kube" / "config"
    kube.parent.mkdir()
    kube.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:9'}}]\n"
        f"users: [{{name: u, user: {{token: {token}}}}}]\n"
        "contexts: [{name: c, context: {cluster: c, user: u}}]\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("KUBECONFIG", str(kube))
    monkeypatch.setenv("FAKE_PULUMI_LOG", str(tmp_path / "work" / "pulumi-calls.jsonl"))
    monkeypatch.setenv("FAKE_PULUMI_ECHO", ",".join([*SECRET_VARS, "@KUBECONFIG"]))
    for name in ("FAKE_PULUMI_SCENARIO", "PULUMI_BACKEND_URL", "GPUPOOL_DEBUG"):
        monkeypatch.delenv(name, raising=False)
    stack_file = tmp_path / "work" / "stack.yaml"
    stack_file.parent.mkdir()
    shutil.copy(EXAMPLE, stack_file)
    yield World(tmp_path, stack_file, values, token, [])


def _run(world: World, capfd: pytest.CaptureFixture[str], *argv: str) -> int:
    code = run([*argv])
    out = capfd.readouterr()
    world.outputs.append((" ".join(argv), out.out + out.err))
    return code


def _assert_nothing_leaked(world: World) -> None:
    leaks = []
    for what, text in world.outputs:
        for name, value in world.values().items():
            if value in text:
                leaks.append(f"{name} in the output of `gpupool {what}`")
    files = [p for p in (world.root / "work").rglob("*") if p.is_file()]
    assert any(p.name == "__main__.py" for p in files)  # the scan saw the rendered program
    assert any(p.suffix == ".json" and "applied" in p.parts for p in files)  # and the record
    for path in files:
        data = path.read_bytes()
        for name, value in world.values().items():
            if value.encode() in data:
                leaks.append(f"{name} in {path.relative_to(world.root)}")
    assert not leaks, "\n".join(leaks)


def test_the_fake_engine_really_echoes_the_secrets(
    world: World, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stand-in pulumi prints every secret: without scrubbing, the scan below would fire."""
    import subprocess

    (world.root / "work" / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    backend = world.root / "state"
    backend.mkdir()
    env = {**os.environ, "PULUMI_BACKEND_URL": f"file://{backend}"}
    cwd = world.root / "work"
    subprocess.run(["pulumi", "stack", "init", "s"], env=env, cwd=cwd, check=True)
    proc = subprocess.run(
        ["pulumi", "--non-interactive", "preview", "--stack", "s"],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    for name in SECRET_VARS:
        assert world.secrets[name] in proc.stdout
    assert world.kube_token in proc.stdout


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "debug"])
def test_no_secret_in_any_output_or_file(
    world: World,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    debug: bool,
) -> None:
    flags = ["--debug"] if debug else []
    f = str(world.stack_file)
    out_dir = str(world.root / "work" / "rendered")

    def gp(*argv: str, scenario: str | None = None) -> int:
        if scenario is None:
            monkeypatch.delenv("FAKE_PULUMI_SCENARIO", raising=False)
        else:
            monkeypatch.setenv("FAKE_PULUMI_SCENARIO", scenario)
        return _run(world, capfd, *flags, *argv)

    # offline commands
    assert gp("validate", f) == 0
    assert gp("validate", "--format", "json", f) == 0
    for fmt in ("text", "json", "markdown"):
        assert gp("plan", "--format", fmt, f) == 0
    assert gp("render", "--out", out_dir, f) == 0
    assert gp("render", "--format", "json", f) == 0
    # the engine: success paths
    for fmt in ("text", "json", "markdown"):
        assert gp("preview", "--format", fmt, f) == 0
    assert gp("up", "--yes", f) == 0
    assert gp("up", f) == 1  # shows the preview, then refuses to prompt without a terminal
    for fmt in ("text", "json", "markdown"):
        assert gp("drift", "--format", fmt, f) in (0, 2)
    assert gp("drift", "--require", "cluster", f) in (1, 2)  # the kubeconfig is read here
    assert gp("plan", f) == 0  # against the record up wrote
    # the engine: every failure scenario
    assert gp("up", "--yes", f, scenario="fail-mid-update") == 1
    for scenario in ("program-error", "no-credentials"):
        assert gp("preview", f, scenario=scenario) == 1
        assert gp("up", "--yes", f, scenario=scenario) == 1
    assert gp("up", "--yes", f, scenario="locked") == 1
    assert gp("destroy", "--yes", f, scenario="locked") == 1
    assert gp("destroy", "--yes", f) == 0
    wrong = f"FAKESECRET-wrong-passphrase-{secrets.token_hex(8)}"
    world.secrets["wrong passphrase"] = wrong
    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE", wrong)
    assert gp("preview", f) == 1  # incorrect passphrase
    monkeypatch.delenv("PULUMI_CONFIG_PASSPHRASE")
    assert gp("up", "--yes", f) == 1  # no passphrase at all
    monkeypatch.setenv("PATH", str(world.root / "nowhere"))
    assert gp("up", "--yes", f) == 1  # no pulumi CLI
    errors = [text for what, text in world.outputs if "error:" in text]
    assert len(errors) >= 9  # the failures really failed, and said so
    world.outputs.append(("(log records)", caplog.text))
    _assert_nothing_leaked(world)


# -- every output path goes through one scrubber (issue: hostile input, secrets) -------------

#: The kubernetes client (kubernetes-client/python ``config/kube_config.py``,
#: ``KubeConfigMerger._merge``) names each merged user ``'<path>/<the whole entry as a dict>'``,
#: so a ``ConfigException`` about a missing key (an OIDC provider without ``id-token``) quotes
#: the entry, secrets and all.
_OIDC_KUBECONFIG = """\
apiVersion: v1
kind: Config
current-context: lab-admin
clusters: [{{name: c, cluster: {{server: 'https://127.0.0.1:9'}}}}]
users:
- name: u
  user:
    auth-provider:
      name: oidc
      config: {{client-id: x, client-secret: {secret}, refresh-token: {refresh},
               idp-issuer-url: 'https://127.0.0.1:1'}}
    exec:
      command: get-token
      apiVersion: client.authentication.k8s.io/v1
      env: [{{name: API_KEY_FOR_PLUGIN, value: {env_value}}}]
contexts: [{{name: lab-admin, context: {{cluster: c, user: u}}}}]
"""


@pytest.mark.cloud_sdks  # the kubernetes client (a dev dependency) is what rejects the kubeconfig
@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_a_rejected_kubeconfig_in_the_drift_report_is_scrubbed(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    """The cluster source's skip reason quotes the kubeconfig entry; no format may show it."""
    values = {
        "client-secret": f"FAKESECRET-oidc-{secrets.token_hex(8)}",
        "refresh-token": f"FAKESECRET-refresh-{secrets.token_hex(8)}",
        "exec env value": f"FAKESECRET-env-{secrets.token_hex(8)}",
    }
    kube = tmp_path / "kubeconfig"
    kube.write_text(_OIDC_KUBECONFIG.format(
        secret=values["client-secret"], refresh=values["refresh-token"],
        env_value=values["exec env value"]), encoding="utf-8")
    monkeypatch.setenv("KUBECONFIG", str(kube))
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))  # no Pulumi CLI: the cloud is skipped
    code = run(["drift", "--format", fmt, str(EXAMPLES / "onprem-hami.yaml")])
    out = capfd.readouterr()
    text = out.out + out.err
    assert code == 1
    assert "cluster" in text and "id-token" in text  # the client's message is still there
    leaked = [name for name, value in values.items() if value in text]
    assert not leaked, f"{leaked} in the {fmt} drift report:\n{text}"


def test_the_passphrase_file_and_exec_env_values_are_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PULUMI_CONFIG_PASSPHRASE_FILE's content and kubeconfig exec env values are scrubbed."""
    passphrase = f"FAKESECRET-file-{secrets.token_hex(8)}"
    phrase_file = tmp_path / "passphrase.txt"
    phrase_file.write_text(passphrase + "\n", encoding="utf-8")
    env_value = f"FAKESECRET-env-{secrets.token_hex(8)}"
    kube = tmp_path / "kubeconfig"
    kube.write_text(_OIDC_KUBECONFIG.format(secret="s", refresh="r", env_value=env_value),
                    encoding="utf-8")
    monkeypatch.setenv("KUBECONFIG", str(kube))
    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE_FILE", str(phrase_file))
    found = secret_values()
    text = scrub(f"engine said {passphrase} and {env_value}.", found)
    assert text == "engine said *** and ***."


@pytest.mark.parametrize(
    ("secret", "text", "expected"),
    [
        # 8 characters or more: every occurrence, inside words too
        ("hunter2hunter2", "x-hunter2hunter2-y", "x-***-y"),
        # 4 to 7: where the value stands alone, not inside a longer name
        ("s3cr3t", "passphrase s3cr3t was refused", "passphrase *** was refused"),
        ("s3cr3t", "stack gpupool-s3cr3t-lab", "stack gpupool-s3cr3t-lab"),
        # numbers and JSON literals are never scrubbed: they would erase counts and break JSON
        ("1234", '{"count": 1234}', '{"count": 1234}'),
        ("true", '{"drifted": true}', '{"drifted": true}'),
        # under 4 characters: never (it would erase ordinary words)
        ("abc", "abc def", "abc def"),
    ],
)
def test_short_secrets_are_scrubbed_where_they_stand_alone(
    secret: str, text: str, expected: str
) -> None:
    """docs/security.md, "Secrets": what is scrubbed by length."""
    assert scrub(text, [secret]) == expected


def test_an_alias_built_kubeconfig_is_walked_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nine levels of ten aliases (10**9 paths, a few hundred bytes) are read in one pass.

    PyYAML shares an aliased node, so the document holds a few dozen objects; a walk that
    follows every path through them never ends. The walk visits each object once.
    """
    lines = ["apiVersion: v1", "kind: Config", "x0: &x0 [{token: FAKESECRET-alias-token}]"]
    for i in range(1, 10):
        lines.append(f"x{i}: &x{i} [" + ", ".join([f"*x{i - 1}"] * 10) + "]")
    lines.append("users: [{name: u, user: *x9}]")
    kube = tmp_path / "kubeconfig"
    kube.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert len(kube.read_bytes()) < 700
    monkeypatch.setenv("KUBECONFIG", str(kube))
    assert secret_values().count("FAKESECRET-alias-token") == 1
