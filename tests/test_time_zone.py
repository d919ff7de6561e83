"""A change of the local time zone is never answered from what was worked out in the zone before.
A file with no date of its own is dated by its modification time in the local zone: the derived
store keeps such rows under the zone (`Flavour.reading`), and a kept answer its fingerprint. Memory
Core reads no file's time: its rows hold in any zone. Each open here is its own process, started
with the `TZ` it names (POSIX zone strings: no zone database needed)."""

from __future__ import annotations

import calendar
import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UTC, TOKYO = "UTC0", "JST-9"
LATE = calendar.timegm(dt.datetime(2026, 3, 31, 23, 30).timetuple())  # 08:30 on April 1st in Tokyo

OPEN = """
import json, sys
from workbench import Vault
from workbench.core.records.store_rows import StoredDocument
vault = Vault.open(sys.argv[1], sys.argv[2] or None)
print(json.dumps({
    "updated": {d.path: str(d.updated) for d in vault.documents},
    "parsed": sorted(r.path for r in vault.index.records if type(r.document) is not StoredDocument),
}))
"""
# `workbench ... conflicts --json`, then which way it went: the index is imported only by an open.
QUICK = (
    "import sys; from workbench.cli import main; code = main(); "
    "print('opened' if 'workbench.core.index' in sys.modules else 'kept', file=sys.stderr); sys.exit(code)"
)


def _env(tmp_path: Path, zone: str) -> dict[str, str]:
    return {**os.environ, "TZ": zone, "XDG_CACHE_HOME": str(tmp_path / "cache")}


def _open(tmp_path: Path, vault: Path, zone: str, flavour: str = "") -> dict:
    done = subprocess.run(
        [sys.executable, "-c", OPEN, str(vault), flavour],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=_env(tmp_path, zone),
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _notes(tmp_path: Path) -> Path:
    vault = tmp_path / "notes"
    vault.mkdir()
    (vault / "late.md").write_text("# Late\n\nWritten just before midnight, UTC.\n", "utf-8")
    (vault / "other.md").write_text("# Other\n\nSee [late](late.md).\n", "utf-8")
    os.utime(vault / "late.md", (LATE, LATE))
    return vault


def test_a_file_dated_by_its_time_follows_the_zone(tmp_path):
    vault = _notes(tmp_path)
    first = _open(tmp_path, vault, UTC, "markdown")
    assert first["updated"]["late.md"] == "2026-03-31"
    assert _open(tmp_path, vault, UTC, "markdown")["parsed"] == []  # the same zone: from the store
    travelled = _open(tmp_path, vault, TOKYO, "markdown")
    assert travelled["updated"]["late.md"] == "2026-04-01", "dated in the zone the row was made in"
    back = _open(tmp_path, vault, UTC, "markdown")
    assert back["updated"]["late.md"] == "2026-03-31"


def test_memory_core_rows_hold_in_any_zone(tmp_path, builder):
    for n in range(5):
        builder.add(f"mem-note-n{n}")
    assert _open(tmp_path, builder.root, UTC)["parsed"]  # the first open parses
    assert _open(tmp_path, builder.root, TOKYO)["parsed"] == []  # no file's time is read: all kept


def _quick(tmp_path: Path, vault: Path, zone: str) -> tuple[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", QUICK, "--vault", str(vault), "--flavour", "markdown", "conflicts", "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=_env(tmp_path, zone),
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr.strip().splitlines()[-1]


def test_an_answer_kept_in_one_zone_is_not_given_in_another(tmp_path):
    vault = _notes(tmp_path)
    ways = [_quick(tmp_path, vault, UTC)[1] for _ in range(3)]
    assert ways[0] == "opened" and "kept" in ways[1:]  # kept once a walk finds the files settled
    assert _quick(tmp_path, vault, TOKYO)[1] == "opened"


def test_an_epoch_date_is_the_curators_day_as_a_file_time_is(tmp_path):
    """Dendron writes `updated` as epoch milliseconds: a moment, with no zone of its own. It is
    dated in the local zone, as a file's time is and as Dendron shows it, not in UTC."""
    vault = tmp_path / "dendron"
    vault.mkdir()
    (vault / "dendron.yml").write_text("version: 5\n", "utf-8")
    (vault / "root.md").write_text(
        f"---\nid: root\ntitle: Root\ndesc: ''\nupdated: {LATE * 1000}\ncreated: {LATE * 1000}\n---\n# Root\n", "utf-8"
    )
    assert _open(tmp_path, vault, UTC, "dendron")["updated"]["root.md"] == "2026-03-31"
    assert _open(tmp_path, vault, TOKYO, "dendron")["updated"]["root.md"] == "2026-04-01"
