"""Churn under a running workbench: while the app is open, another writer adds, rewrites and deletes
a few hundred documents. The app's live vault must end up exactly as a fresh open of the folder
sees it, and its search pane must follow (find what was added, not what was deleted)."""

from __future__ import annotations

import hashlib
import os
import random
import threading
import time
from pathlib import Path

import pytest
from tui_helpers import result_ids, settle, type_text, wait_for
from vault_builders import doc_path, doc_text

from workbench import Vault
from workbench.tui.app import WorkbenchApp
from workbench.tui.widgets.search import SearchPane

pytestmark = pytest.mark.slow  # hundreds of writes, with the app following each

DELETED_SAMPLE = "mem-decision-api-fastapi"  # a document of the sample, deleted during the churn
ADDED = "mem-note-churn-zanzibar"  # added late in the churn and kept
ADDED_THEN_DELETED = "mem-note-churn-quokka"  # added early in the churn, deleted later
PATIENCE = 90.0  # seconds to wait for the app: hundreds of changes reach it through the watcher


def write(path: Path, text: str, atomic: bool) -> None:
    """As agents write: in place, or to a hidden temporary file renamed over the target."""
    if atomic:
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    else:
        path.write_text(text, encoding="utf-8")


def churn(root: Path, operations: int, failures: list[BaseException], seed: int = 5) -> None:
    """Add, rewrite and delete documents, a few milliseconds apart, as a busy agent would."""
    try:
        rng = random.Random(seed)
        statuses = ["draft", "active", "deprecated", "archived"]
        live: set[str] = set()
        gone: list[str] = []
        counter = 0

        def text_for(doc_id: str, round_: int) -> str:
            targets = rng.sample(sorted(live), min(len(live), rng.randint(0, 2)))
            links = "[" + ", ".join(f"{{type: related_to, target: {t}}}" for t in targets if t != doc_id) + "]"
            words = " ".join(
                rng.choice(["ledger", "refund", "webhook", "retry", "tenant", "audit"])
                for _ in range(rng.randint(3, 30))
            )
            return doc_text(
                doc_id,
                status=rng.choice(statuses),
                links=links,
                tags=f"[churn, r{round_}]",
                body=f"Churn round {round_}: {words}\n",
            )

        for step in range(operations):
            if step == 10:
                doc_id = ADDED_THEN_DELETED
                write(root / doc_path(doc_id), doc_text(doc_id, body="A quokka smiles.\n"), atomic=False)
                live.add(doc_id)
            elif step == operations // 2:
                (root / doc_path(DELETED_SAMPLE)).unlink()
            elif step == operations * 3 // 4:
                (root / doc_path(ADDED_THEN_DELETED)).unlink()
                live.discard(ADDED_THEN_DELETED)
            elif step == operations - 20:
                write(
                    root / doc_path(ADDED),
                    doc_text(ADDED, body="The zanzibar lighthouse keeps its light.\n"),
                    atomic=True,
                )
            else:
                action = rng.choices(["add", "rewrite", "delete", "readd", "append-sample"], [5, 6, 2, 1, 1])[0]
                if action == "add" or not live:
                    counter += 1
                    doc_id = f"mem-{rng.choice(['note', 'note', 'entity', 'decision'])}-churn-{counter}"
                    write(root / doc_path(doc_id), text_for(doc_id, step), rng.random() < 0.5)
                    live.add(doc_id)
                elif action == "rewrite":
                    doc_id = rng.choice(sorted(live - {ADDED_THEN_DELETED}) or sorted(live))
                    if doc_id != ADDED_THEN_DELETED:
                        write(root / doc_path(doc_id), text_for(doc_id, step), rng.random() < 0.5)
                elif action == "delete":
                    doc_id = rng.choice(sorted(live))
                    if doc_id != ADDED_THEN_DELETED:
                        (root / doc_path(doc_id)).unlink()
                        live.discard(doc_id)
                        gone.append(doc_id)
                elif action == "readd" and gone:
                    doc_id = gone.pop(rng.randrange(len(gone)))
                    write(root / doc_path(doc_id), text_for(doc_id, step), rng.random() < 0.5)
                    live.add(doc_id)
                elif action == "append-sample":  # an agent appending to a document of the sample
                    path = rng.choice(sorted((root / "notes").glob("mem-note-[!c]*.md")))
                    path.write_bytes(path.read_bytes() + f"\nSeen again at step {step}.\n".encode())
            time.sleep(rng.random() * 0.008)
    except BaseException as exc:  # noqa: BLE001 - handed to the test, which fails with it
        failures.append(exc)


def snapshot(vault: Vault) -> tuple:
    """What a person sees of a vault: every file's id, title, status and validity, and every problem."""
    records = sorted(
        (r.path, r.document.id, r.document.title, r.document.status, r.document.valid, r.document.digest)
        for r in vault.records
    )
    problems = sorted((p.path, p.line or 0, str(p.severity), p.code, p.message) for p in vault.problems)
    return vault.ids(), records, problems


def matches_disk(vault: Vault, root: Path) -> bool:
    """The vault holds exactly the Markdown files on disk, each as its current bytes."""
    on_disk = {}
    for path in root.rglob("*.md"):
        relative = path.relative_to(root)
        if not any(part.startswith(".") for part in relative.parts) and relative.as_posix() not in (
            "log.md",
            "README.md",
        ):
            on_disk[relative.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return {r.path: r.document.digest for r in vault.records} == on_disk


async def search_for(pilot, query: str) -> list[str]:
    await pilot.press("slash", "ctrl+u")
    await type_text(pilot, query)
    pane = pilot.app.screen.query_one(SearchPane)
    await wait_for(pilot, lambda: pane._shown_query == query, PATIENCE)
    await settle(pilot)
    return result_ids(pilot.app)


async def test_churn_on_disk_leaves_the_app_equal_to_a_fresh_open(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.screen
        await wait_for(pilot, lambda: main.watcher is not None and main.watcher.ready.is_set(), PATIENCE)
        assert DELETED_SAMPLE in (await search_for(pilot, "fastapi"))

        failures: list[BaseException] = []
        writer = threading.Thread(target=churn, args=(sample_copy, 300, failures), name="churn")
        writer.start()
        typed = False
        while writer.is_alive():  # the app keeps working meanwhile: the search is typed mid-churn
            await pilot.pause(0.05)
            if not typed:
                await pilot.press("slash", "ctrl+u")
                await type_text(pilot, "churn ledger")
                typed = True
        writer.join()
        assert not failures, failures

        vault = main.vault
        await wait_for(pilot, lambda: matches_disk(vault, sample_copy), PATIENCE)
        fresh = Vault.open(sample_copy)
        assert snapshot(vault) == snapshot(fresh)
        # The screen's summary (header counts, the graph, what a blank search lists) caught up too.
        valid_ids = {d.id for d in fresh.documents}
        await wait_for(
            pilot,
            lambda: (
                main.summary is not None
                and main.summary.files == len(fresh)
                and {d.id for d in main.summary.documents} == valid_ids
            ),
            PATIENCE,
        )

        assert ADDED in fresh and DELETED_SAMPLE not in fresh and ADDED_THEN_DELETED not in fresh
        assert ADDED in (await search_for(pilot, "zanzibar"))
        assert DELETED_SAMPLE not in (await search_for(pilot, "fastapi"))
        assert ADDED_THEN_DELETED not in (await search_for(pilot, "quokka"))
        assert len(await search_for(pilot, "")) == len(valid_ids)
