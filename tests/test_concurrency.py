"""Several processes writing one vault at once: every save lands or raises ConflictError; none is lost."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from workbench import Vault

WRITER = textwrap.dedent(
    """
    import dataclasses, json, random, sys
    from workbench import Vault, ConflictError
    root, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    vault = Vault.open(root)
    rng = random.Random(name)
    ids = sorted(vault.ids())
    stats = {"writes": 0, "conflicts": 0, "retries": 0}
    for number in range(count):
        # Half the writes go to one hot document, the rest spread over the others.
        doc_id = ids[0] if number % 2 == 0 else rng.choice(ids[1:])
        token = f"{name}-{number}"
        while True:
            doc = vault.get(doc_id)
            try:
                vault.save(dataclasses.replace(doc, body=doc.body + token + "\\n"))
                stats["writes"] += 1
                break
            except ConflictError:
                stats["conflicts"] += 1
                stats["retries"] += 1
    print(json.dumps(stats))
    """
)


def test_four_processes_lose_no_update(builder):
    for number in range(5):
        builder.add(f"mem-note-n{number}", body="start\n")
    Vault.open(builder.root)
    processes, per_process = 4, 60
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(builder.root), f"w{p}", str(per_process)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for p in range(processes)
    ]
    stats = []
    for run in runs:
        out, _ = run.communicate(timeout=300)
        assert run.returncode == 0
        stats.append(json.loads(out))
    vault = Vault.open(builder.root)
    bodies = "".join(d.body for d in vault.documents)
    for p in range(processes):
        for number in range(per_process):
            assert bodies.count(f"w{p}-{number}\n") == 1, f"update w{p}-{number} was lost or doubled"
    assert sum(s["writes"] for s in stats) == processes * per_process
    assert vault.problems == []
    assert not (builder.root / ".workbench" / "lock").exists()
    assert not [p for p in builder.root.rglob("*.tmp")]
    print(
        "concurrency:",
        processes,
        "processes,",
        sum(s["writes"] for s in stats),
        "writes,",
        sum(s["conflicts"] for s in stats),
        "conflicts, 0 lost",
    )


def test_a_search_does_not_wait_for_the_checks_across_files(sample_copy, monkeypatch):
    """On a large vault the link and supersession checks take a second after every change; a
    person typing a search meanwhile must not wait for them."""
    import threading

    from workbench.core import index as index_module

    vault = Vault.open(sample_copy)
    expected = list(vault.problems)
    started, release = threading.Event(), threading.Event()
    real = index_module.check_relations

    def slow(*args, **kwargs):
        started.set()
        assert release.wait(10), "the search waited for the checks"
        return real(*args, **kwargs)

    monkeypatch.setattr(index_module, "check_relations", slow)
    note = sample_copy / "notes" / "mem-note-stripe-test-clocks.md"
    note.write_text(note.read_text() + "\nOne more line.\n")
    vault.refresh_paths(["notes/mem-note-stripe-test-clocks.md"])
    found: list = []
    checking = threading.Thread(target=lambda: found.append(vault.problems))
    checking.start()
    assert started.wait(10)
    hits = vault.search("stripe webhook")  # the vault's lock is free while the checks run
    release.set()
    checking.join(10)
    assert hits and found and list(found[0]) == expected
    assert vault.problems_for("mem-decision-api-fastapi") == [
        p for p in expected if p.path == vault.get("mem-decision-api-fastapi").path
    ]
