"""The cloud plug-ins' rendering facts agree with render's tables and helper templates.

Each cloud names the program helpers that call its SDK (``Cloud.program_helpers``) and the types
Pulumi replaces by deleting first (``Cloud.delete_before_replace``); render reads both instead of
naming clouds. These tests catch a cloud naming a helper render has no template for, a helper
calling an SDK no cloud claims (its program would not import the SDK), and a type token of
another cloud's SDK.
"""

from __future__ import annotations

import re

import pytest

from gpupool import clouds, render
from gpupool.render import program
from gpupool.resources import templates_dir


def _helper_text(name: str) -> str:
    return (templates_dir() / "helpers" / f"{name}.py.j2").read_text()


@pytest.mark.parametrize("cloud", clouds.all_clouds(), ids=lambda c: c.name)
def test_cloud_helpers_are_render_helpers_that_call_its_sdk(cloud: clouds.Cloud) -> None:
    for helper in cloud.program_helpers:
        assert cloud.sdk is not None, f"{cloud.name} has helpers but no SDK"
        assert helper in program.HELPERS
        assert program.HELPERS[helper][0] == (cloud.sdk.token,)
        assert re.search(rf"\b{cloud.sdk.alias}\.", _helper_text(helper))


def test_every_helper_that_calls_a_cloud_sdk_is_claimed_by_its_cloud() -> None:
    claimed = {h for c in clouds.all_clouds() for h in c.program_helpers}
    for helper in program.HELPERS:
        text = _helper_text(helper)
        for cloud in clouds.all_clouds():
            if cloud.sdk is not None and re.search(rf"\b{cloud.sdk.alias}\.", text):
                assert helper in cloud.program_helpers, (helper, cloud.name)
        if helper not in claimed:
            assert program.HELPERS[helper][0] == ()


@pytest.mark.parametrize("cloud", clouds.all_clouds(), ids=lambda c: c.name)
def test_delete_before_replace_types_are_the_clouds_own(cloud: clouds.Cloud) -> None:
    for token in cloud.delete_before_replace:
        assert cloud.sdk is not None
        assert token.split(":")[0] == cloud.sdk.token
        assert render.constructor_of(token)[0] == cloud.sdk.token
        assert token in program.DELETE_BEFORE_REPLACE


def test_render_packages_are_the_sdks_of_the_clouds() -> None:
    assert set(program.PACKAGES) == {sdk.token for sdk in clouds.sdks()}
    assert render.constructor_of("kubernetes:core/v1:Namespace") == (
        clouds.KUBERNETES_SDK.token,
        f"{clouds.KUBERNETES_SDK.alias}.core.v1.Namespace",
    )
