"""One answer, one day: around midnight, what a tiered vault shows is of the day its rows are kept
for. The clock here is fixed at 23:59:59.9 and moves on a tenth of a second each time it is read,
so that any answer that reads it twice sees both sides of midnight."""

from __future__ import annotations

import datetime as dt
import os
import time

import pytest

from workbench import Vault
from workbench.core import index as index_module
from workbench.core.flavours.tiered import tier
from workbench.core.records import loading
from workbench.core.services import tiers

DAY = dt.date(2026, 3, 31)  # far from the machine's own day: a view that reads the clock itself differs
EVE = dt.datetime(2026, 3, 31, 23, 59, 59, 900000)


class Clock:
    """23:59:59.9 on DAY, a tenth of a second later at each reading."""

    def __init__(self, start: dt.datetime = EVE):
        self.at = start - dt.timedelta(seconds=0.1)

    def now(self) -> dt.datetime:
        self.at += dt.timedelta(seconds=0.1)
        return self.at

    def today(self) -> dt.date:
        return self.now().date()


def _use(monkeypatch, clock: Clock) -> None:
    monkeypatch.setattr(index_module, "today", clock.today)
    monkeypatch.setattr(loading, "today", clock.today)


def _aged(path, days: int) -> None:
    """Last changed at noon, `days` days before DAY (local time)."""
    noon = dt.datetime.combine(DAY - dt.timedelta(days=days), dt.time(12))
    stamp = time.mktime(noon.timetuple())
    os.utime(path, (stamp, stamp))


@pytest.fixture
def vault_root(tmp_path):
    root = tmp_path / "tiers"
    (root / "projects").mkdir(parents=True)
    (root / "memory.md").write_text("# Memory\n\nHot things.\n", "utf-8")
    (root / "corrections.md").write_text("# Corrections Log\n", "utf-8")
    for name in ("alpha", "beta"):
        (root / "projects" / f"{name}.md").write_text(f"# {name}\n\nInherits: global\n", "utf-8")
        _aged(root / "projects" / f"{name}.md", 90)  # WARM on DAY, COLD the day after
    return root


def _store_rows(vault: Vault) -> dict[str, str]:
    return dict(vault.index.store.db.execute("SELECT path, checked_on FROM files"))


def test_an_open_across_midnight_gives_every_file_the_tier_of_one_day(vault_root, monkeypatch):
    _use(monkeypatch, Clock(dt.datetime(2026, 3, 31, 12)))  # a first open at noon keeps its rows
    Vault.open(vault_root, "tiered").index.store.close()
    (vault_root / "projects" / "gamma.md").write_text("# gamma\n", "utf-8")
    _aged(vault_root / "projects" / "gamma.md", 90)
    _use(monkeypatch, Clock())  # the next open starts at 23:59:59.9
    vault = Vault.open(vault_root, "tiered")
    stated = {d.path: d.stated_status for d in vault.documents if d.path.startswith("projects/")}
    assert stated == {"projects/alpha.md": "WARM", "projects/beta.md": "WARM", "projects/gamma.md": "WARM"}
    assert set(_store_rows(vault).values()) == {DAY.isoformat()}
    vault.index.store.close()


def test_a_file_read_across_midnight_is_kept_for_the_day_it_was_read_on(vault_root, monkeypatch):
    _use(monkeypatch, Clock(dt.datetime(2026, 3, 31, 12)))
    vault = Vault.open(vault_root, "tiered")
    alpha = vault_root / "projects" / "alpha.md"
    alpha.write_text("# alpha\n\nInherits: global\n\nA new line.\n", "utf-8")
    _aged(alpha, 90)
    _use(monkeypatch, Clock())
    vault.index.refresh_paths(["projects/alpha.md"])
    checked_on = dt.date.fromisoformat(_store_rows(vault)["projects/alpha.md"])
    shown = vault.get("projects/alpha").stated_status
    assert shown == tier("projects/alpha.md", DAY - dt.timedelta(days=90), checked_on).upper(), (
        f"read as {shown}, kept as checked on {checked_on}"
    )
    vault.index.store.close()


def test_a_correction_logged_at_midnight_is_of_one_moment(tmp_path):
    root = tmp_path / "tiers"
    root.mkdir()
    (root / "memory.md").write_text("# Memory\n", "utf-8")
    (root / "corrections.md").write_text("# Corrections Log\n", "utf-8")
    vault = Vault.open(root, "tiered")
    eve = dt.datetime(2026, 12, 31, 23, 59, 59, 900000)  # the last moment of a day, a month and a year
    plan = tiers.plan_correction(vault.index, "tabs, not spaces", moment=eve)
    text = plan.changes[0].after.decode()
    assert "## 2026-12-31" in text and "- [23:59] tabs, not spaces" in text
    vault.apply(plan)
    vault.apply(tiers.plan_correction(vault.index, "tabs, not spaces", moment=eve))
    third = tiers.plan_correction(vault.index, "tabs, not spaces", moment=eve)
    hot = next(c for c in third.changes if c.path == "memory.md").after.decode()
    assert "(confirmed 2026-12)" in hot
    vault.index.store.close()
