"""Shared fixtures: real vaults on disk, written from dedented text or copied from the sample."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import settings

from following_process import Following
from helpers import SAMPLE
from vault_builders import VaultBuilder

# Speed is measured by the benchmarks, never asserted on wall time: a shared or loaded machine
# takes a property test's example longer than Hypothesis's default 200 ms deadline now and then.
settings.register_profile("workbench", deadline=None)
settings.load_profile("workbench")

__all__ = ["SAMPLE"]  # fixtures use it; tests import it from `helpers`


def pytest_configure(config: pytest.Config) -> None:
    """A folder given with another inside it (`pytest tests/ tests/tui/`): pytest 8 collects only
    the inner one (pytest-dev/pytest#13319), so the inner one is left out, as later pytest does."""
    here = config.invocation_params.dir
    folders = {arg: (here / arg).resolve() for arg in config.args if "::" not in arg and (here / arg).is_dir()}
    inside = {
        arg for arg, path in folders.items() if any(path != f and path.is_relative_to(f) for f in folders.values())
    }
    if inside:
        config.args[:] = [arg for arg in config.args if arg not in inside]


@pytest.fixture(scope="session", autouse=True)
def _user_state(tmp_path_factory):
    """The user's own state (the secret that seals derived stores) in a folder of the run's, set
    before any module's fixture opens a vault: one user for the whole run, as outside the tests,
    so a vault built once and copied for each test is this user's."""
    patch = pytest.MonkeyPatch()
    patch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))
    yield
    patch.undo()


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path_factory, monkeypatch):
    """No test reads the user's vault setting or writes into their cache."""
    monkeypatch.delenv("WORKBENCH_VAULT", raising=False)
    monkeypatch.delenv("WORKBENCH_CRASH_AT", raising=False)
    monkeypatch.delenv("WORKBENCH_INTERRUPT_AT", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))


@pytest.fixture
def sample_copy(tmp_path) -> Path:
    """A scratch copy of the sample vault: opening a vault writes `.workbench/` into it."""
    target = tmp_path / "vault"
    shutil.copytree(SAMPLE, target, ignore=shutil.ignore_patterns(".workbench"))
    return target


@pytest.fixture
def builder(tmp_path) -> VaultBuilder:
    return VaultBuilder(tmp_path / "vault")


@pytest.fixture
def following(sample_copy):
    """Start `workbench follow` processes (on the sample's copy unless told), each watching once
    returned; any left running is killed at the end."""
    started: list[Following] = []

    def start(vault: Path = sample_copy, *reading: str, options: tuple[str, ...] = ()) -> Following:
        follower = Following(vault, *reading, options=options)
        started.append(follower)
        follower.said("watching the vault")
        return follower

    yield start
    for follower in started:
        if follower.process.poll() is None:
            follower.process.kill()
            follower.process.wait()
