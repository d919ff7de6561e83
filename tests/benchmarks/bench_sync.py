"""What `workbench sync` costs against plain git, merging many documents changed on both machines.

Run: python -m tests.benchmarks.bench_sync [--docs 10000] [--changed 1000] [--driver]

A generated vault of --docs documents is committed to a bare repository and cloned twice. On one
clone --changed documents get a new tag and a new first line of text; on the other the same
documents get another confidence and a paragraph at the end, and that clone pushes. So every
changed document was changed on both sides, in different keys and paragraphs: git's text merge
and the document merge both settle them without a question.

Timed, on copies of the same clone at the same commit:
- plain git: `git fetch`, `git merge` (git's own text merge, no driver), `git push`;
- `workbench sync` (`gitsync.sync`): the same fetch, merge and push, with the documents both
  sides changed merged key by key in one process, plus the supersession check;
- with --driver, plain `git merge` with the document driver registered, as a `git pull` typed
  by hand runs it: one Python process per document (slow by construction; shown for scale).
Printed: seconds each, and the ratio against plain git. A benchmark, not a test: machines are noisy.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from tests.benchmarks.generate import generate_vault
from workbench.core.services import gitsync


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def identify(repo: Path, name: str) -> None:
    git(repo, "config", "user.name", name)
    git(repo, "config", "user.email", f"{name}@example.org")


def edit_all(repo: Path, paths: list[str], edit) -> None:
    for path in paths:
        target = repo / path
        target.write_text(edit(target.read_text(encoding="utf-8")), encoding="utf-8")


def ours_edit(text: str) -> str:
    head, _, body = text.partition("\n---\n")
    head = head.replace("tags: [", "tags: [laptop, ", 1)
    return f"{head}\n---\nA line the laptop wrote first.\n{body}"


def theirs_edit(text: str) -> str:
    return text.replace("confidence: medium", "confidence: high", 1) + "\nA paragraph the server added.\n"


def prepare(work: Path, docs: int, changed: int) -> tuple[Path, list[str]]:
    """The laptop's clone, its edits committed, with the server's edits pushed to the remote."""
    bare, laptop, server = work / "vault.git", work / "laptop", work / "server"
    git(work, "init", "-q", "--bare", "-b", "main", str(bare))
    git(work, "clone", "-q", str(bare), str(laptop))
    identify(laptop, "laptop")
    git(laptop, "checkout", "-q", "-b", "main")
    generate_vault(laptop, docs)
    git(laptop, "add", "-A")
    git(laptop, "commit", "-qm", "the vault")
    git(laptop, "push", "-q", "-u", "origin", "main")
    git(work, "clone", "-q", str(bare), str(server))
    identify(server, "server")
    paths = sorted(git(laptop, "ls-files", "*.md").split())
    chosen = random.Random(5).sample(paths, changed)
    edit_all(server, chosen, theirs_edit)
    git(server, "commit", "-qam", "the server's edits")
    git(server, "push", "-q")
    edit_all(laptop, chosen, ours_edit)
    git(laptop, "commit", "-qam", "the laptop's edits")
    return laptop, chosen


def reset_remote(work: Path, tip: str) -> None:
    git(work / "vault.git", "update-ref", "refs/heads/main", tip)


def timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=10000)
    parser.add_argument("--changed", type=int, default=1000)
    parser.add_argument(
        "--driver", action="store_true", help="also time plain git merge with the driver (one process per document)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        start = time.perf_counter()
        laptop, chosen = prepare(work, args.docs, args.changed)
        remote_tip = git(work / "vault.git", "rev-parse", "main").strip()
        print(
            f"vault: {args.docs} documents, {len(chosen)} changed on both sides (made in {time.perf_counter() - start:.1f}s)"
        )

        plain = work / "plain"
        shutil.copytree(laptop, plain, symlinks=True)
        plain_time = timed(
            lambda: (
                git(plain, "fetch", "-q", "origin"),
                git(plain, "merge", "-q", "--no-edit", "origin/main"),
                git(plain, "push", "-q", "origin", "HEAD:main"),
            )
        )
        merge_only = work / "merge-only"
        reset_remote(work, remote_tip)
        shutil.copytree(laptop, merge_only, symlinks=True)
        git(merge_only, "fetch", "-q", "origin")
        merge_time = timed(lambda: git(merge_only, "merge", "-q", "--no-edit", "origin/main"))

        synced = work / "synced"
        reset_remote(work, remote_tip)
        shutil.copytree(laptop, synced, symlinks=True)
        gitsync.setup(synced)
        git(synced, "add", "-A")
        git(synced, "commit", "-qm", "set up sync")
        report = None

        def run() -> None:
            nonlocal report
            report = gitsync.sync(synced)

        sync_time = timed(run)
        assert report is not None and not report.conflicts and report.pushed, report
        same = all(
            (synced / p).read_bytes().count(b"laptop") and b"server added" in (synced / p).read_bytes() for p in chosen
        )
        print(f"plain git fetch + merge + push   {plain_time:7.2f}s")
        print(f"  of which git merge             {merge_time:7.2f}s")
        print(
            f"workbench sync                   {sync_time:7.2f}s   {report.merged} documents merged key by key, "
            f"both sides kept in every one: {same}"
        )
        print(f"ratio sync / plain git           {sync_time / plain_time:7.1f}x")

        if args.driver:
            driven = work / "driven"
            reset_remote(work, remote_tip)
            shutil.copytree(laptop, driven, symlinks=True)
            gitsync.setup(driven)
            git(driven, "add", "-A")
            git(driven, "commit", "-qm", "set up sync")
            git(driven, "fetch", "-q", "origin")
            driver_time = timed(lambda: git(driven, "merge", "-q", "--no-edit", "origin/main"))
            print(
                f"git merge through the driver     {driver_time:7.2f}s   ratio to plain git merge {driver_time / merge_time:.1f}x"
            )


if __name__ == "__main__":
    main()
