"""The vault's settings file (`.workbench.yaml`) as the queue writes to it: a dismissal in a vault
whose records have no field for one. Written like any change: atomic, verified, never over a change
it has not seen, and refused with the file's name when the file is broken."""

from __future__ import annotations

import pytest

from tests.vault_builders import VaultBuilder
from workbench import RefusedError, Vault
from workbench.core.vocabulary.model import ConflictError
from workbench.core.records.vaultconfig import read_config, with_compatible


def adr_vault(tmp_path) -> Vault:
    b = VaultBuilder(tmp_path / "adr")
    for number, title in ((1, "Queue backend: RabbitMQ"), (2, "Queue backend: Kafka"), (3, "JSON logs")):
        b.raw(f"000{number}-x{number}.md", f"# {number}. {title}\n\n## Status\n\nAccepted\n\n## Decision\n\n{title}.\n")
    return Vault.open(b.root)


def test_a_settings_file_changed_by_plain_io_after_the_preview_is_never_overwritten(tmp_path):
    vault = adr_vault(tmp_path)
    settings = vault.root / ".workbench.yaml"
    settings.write_text("statuses:\n  Parked: deprecated\n")
    plan = vault.mark_compatible("ADR-001", "ADR-002", dry_run=True)
    settings.write_text("statuses:\n  Parked: deprecated\n  Shelved: archived\n")  # someone else, meanwhile
    with pytest.raises(ConflictError):
        vault.apply(plan)
    assert settings.read_text() == "statuses:\n  Parked: deprecated\n  Shelved: archived\n"


def test_a_broken_settings_file_is_named_and_left_as_it_is(tmp_path):
    vault = adr_vault(tmp_path)
    settings = vault.root / ".workbench.yaml"
    settings.write_text("statuses: [oops\n")
    with pytest.raises(RefusedError, match=r"\.workbench\.yaml: is not valid YAML"):
        vault.mark_compatible("ADR-001", "ADR-002")
    assert settings.read_text() == "statuses: [oops\n"
    with pytest.raises(RefusedError, match="no document|not found|ADR-404"):
        vault.mark_compatible("ADR-001", "ADR-404")


def test_ids_that_read_as_dates_or_numbers_are_kept_as_written_and_the_list_grows_in_place():
    text = "# ours\ncompatible:\n    - [a, b]\n\nstatuses:\n  Parked: deprecated\n"
    once = with_compatible(text, "2020-08-10", "0161")
    assert (
        once == '# ours\ncompatible:\n    - [a, b]\n    - ["2020-08-10", "0161"]\n\nstatuses:\n  Parked: deprecated\n'
    )
    import yaml

    assert yaml.safe_load(once)["compatible"][1] == ["2020-08-10", "0161"]
    assert with_compatible("compatible: []\n", "a", "b") == 'compatible:\n  - ["a", "b"]\n'
    assert with_compatible("compatible:  # checked by hand\n", "a", "b") == (
        'compatible:  # checked by hand\n  - ["a", "b"]\n'
    )
    assert with_compatible("statuses: {}", "a", "b") == 'statuses: {}\ncompatible:\n  - ["a", "b"]\n'
    with pytest.raises(RefusedError, match="edit it by hand"):
        with_compatible("compatible: [[a, b]]\n", "c", "d")


def test_a_compatible_entry_that_is_no_pair_is_a_problem_check_names(tmp_path):
    (tmp_path / ".workbench.yaml").write_text("compatible:\n  - [ADR-001]\n  - [ADR-001, ADR-002]\n")
    config = read_config(tmp_path)
    assert config.compatible == frozenset({frozenset({"ADR-001", "ADR-002"})})
    assert [p.message for p in config.problems] == [
        "`compatible:` holds ['ADR-001']; each entry is a pair of document ids, as [ADR-001, ADR-002]"
    ]


def test_a_pair_marked_compatible_by_hand_while_the_vault_is_watched_leaves_the_queue(tmp_path):
    """A person edits `.workbench.yaml` in an editor while the TUI runs: the pair leaves the queue
    at once, and the screen hears of the change, rather than at the next open."""
    import threading
    import time

    vault = adr_vault(tmp_path)
    assert any(set(c.ids) == {"ADR-001", "ADR-002"} for c in vault.conflicts())
    heard: list[str] = []
    changed = threading.Event()
    watcher = vault.watch(lambda paths, _: (heard.extend(paths), changed.set()))
    try:
        assert watcher.ready.wait(5)
        (vault.root / ".workbench.yaml").write_text('compatible:\n  - ["ADR-001", "ADR-002"]\n')
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(set(c.ids) == {"ADR-001", "ADR-002"} for c in vault.conflicts()):
            time.sleep(0.05)
        assert not any(set(c.ids) == {"ADR-001", "ADR-002"} for c in vault.conflicts())
        assert changed.wait(5) and ".workbench.yaml" in heard
    finally:
        watcher.stop()
