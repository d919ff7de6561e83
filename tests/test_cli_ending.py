"""How a `workbench` process ends (`cli/ending.py`): at once where the interpreter's own ending has
nothing left to do but free memory, the usual way otherwise. Real processes on real vaults: what
each prints, writes and exits with is what `sys.exit(main())` gives, and every duty the usual
ending has (an `atexit` function, a thread still running, a store's last close, output not yet
read by a slow reader) is still done."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parent.parent
# An object freed by the interpreter's own ending says so on stderr: the program must not pay for it.
PROBE = (
    "import os, sys\n"
    "class Probe:\n"
    "    def __del__(self, write=os.write):\n"
    "        write(2, b'torn down\\n')\n"
    "sys.probe = Probe()\n"
)
PROGRAM = "from workbench.cli import run; run()"
USUAL = "import sys; from workbench.cli import main; sys.exit(main())"


# Python's streams buffered as a person's shell has them (some environments set PYTHONUNBUFFERED).
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}


def python(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, cwd=ROOT, env=ENV)


def big_vault(builder) -> Path:
    """A vault whose one document prints far more than a pipe holds (64 KB on Linux)."""
    builder.add("mem-note-long", body="A line of the long note, said again and again.\n" * 8000)
    builder.add("mem-note-short")
    return builder.root


def test_the_program_ends_without_the_interpreters_teardown_and_prints_the_same(sample_copy):
    args = ("--vault", str(sample_copy), "conflicts", "--json")
    usual = python(PROBE + USUAL, *args)
    program = python(PROBE + PROGRAM, *args)
    assert usual.returncode == program.returncode == 0
    assert b"torn down" in usual.stderr  # the probe works: the usual ending frees it
    assert b"torn down" not in program.stderr
    assert program.stdout == usual.stdout and program.stdout.startswith(b"{")
    kept = python(PROBE + PROGRAM, *args)  # answered from what is kept: no vault opened
    assert kept.returncode == 0 and kept.stdout == usual.stdout and b"torn down" not in kept.stderr


def test_the_collector_paused_for_the_queue_stays_paused_to_the_end(sample_copy):
    """`conflicts --json` answered with the cyclic collector paused: a process `run` ends does not
    enable it again (its first pass would walk every object the command made), a caller of `main`
    that goes on has it enabled again."""
    decision = next(p for p in sorted(sample_copy.rglob("*.md")) if "type: decision" in p.read_text("utf-8"))
    with decision.open("a", encoding="utf-8") as file:
        file.write("\nOne sentence more.\n")  # nothing kept for it: the vault is opened
    watched = (
        "import gc, os, sys\n"
        "import workbench.cli.main\n"
        "M = sys.modules['workbench.cli.main']\n"
        "answered = M.main\n"
        "def main(argv=None):\n"
        "    code = answered(argv)\n"
        "    os.write(2, b'enabled\\n' if gc.isenabled() else b'paused\\n')\n"
        "    gc.callbacks.append(lambda phase, info: phase == 'start' and os.write(2, b'collected\\n'))\n"
        "    return code\n"
        "M.main = main\n"
    )
    args = ("--vault", str(sample_copy), "conflicts", "--json")
    program = python(watched + "M.run()", *args)
    assert program.returncode == 0 and program.stdout.startswith(b"{")
    assert b"paused" in program.stderr and b"collected" not in program.stderr
    usual = python(watched + "sys.exit(M.main())", *args)
    assert usual.returncode == 0 and b"enabled" in usual.stderr


def test_an_atexit_duty_still_runs(sample_copy):
    duty = "import atexit, sys\natexit.register(lambda: sys.stderr.write('duty done\\n'))\n"
    result = python(PROBE + duty + PROGRAM, "--vault", str(sample_copy), "check", "--json")
    assert result.returncode == 0 and result.stdout.startswith(b"{")
    assert b"duty done" in result.stderr and b"torn down" in result.stderr  # the usual ending


def test_a_thread_still_running_is_waited_for(sample_copy, tmp_path):
    written = tmp_path / "written"
    thread = (
        "import threading, time\n"
        "def later():\n"
        "    time.sleep(0.5)\n"
        f"    open({str(written)!r}, 'w').write('whole')\n"
        "threading.Thread(target=later).start()\n"
    )
    result = python(thread + PROGRAM, "--vault", str(sample_copy), "check", "--json")
    assert result.returncode == 0 and result.stdout.startswith(b"{")
    assert written.read_text() == "whole"


def test_a_profiler_writes_its_figures(sample_copy, tmp_path):
    figures = tmp_path / "figures.prof"
    result = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(figures), "-m", "workbench.cli"]
        + ["--vault", str(sample_copy), "check", "--json"],
        capture_output=True,
        cwd=ROOT,
        env=ENV,
    )
    assert result.returncode == 0 and result.stdout.startswith(b"{")
    assert figures.stat().st_size > 0


def test_a_write_command_writes_everything_and_closes_its_store(sample_copy):
    doc_id = "mem-decision-money-integer-cents"
    result = python(PROGRAM, "--vault", str(sample_copy), "status", doc_id, "deprecated")
    assert result.returncode == 0, result.stderr
    assert b"deprecated" in result.stdout
    assert "status: deprecated" in next(sample_copy.rglob(f"{doc_id}.md")).read_text("utf-8")
    assert doc_id in (sample_copy / "log.md").read_text("utf-8").splitlines()[-1]
    state = sample_copy / ".workbench"
    # The store's last close folded its write-ahead log back: nothing left beside it, as after
    # the usual ending, and the next process reads the change from the store.
    assert (state / "index.sqlite").is_file()
    assert not (state / "index.sqlite-wal").exists() and not (state / "index.sqlite-shm").exists()
    shown = python(PROGRAM, "--vault", str(sample_copy), "show", "--json", doc_id)
    assert b'"status": "deprecated"' in shown.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("check", "--json"),  # 0
        ("status", "mem-note-ghost", "active"),  # refused: 3
        ("show", "--json", "mem-note-ghost"),
        ("search", "--limit", "x", "money"),  # the parser refuses it: 2
        ("no-such-command",),
        ("--help",),
    ],
)
def test_exit_statuses_and_output_are_those_of_main(sample_copy, args):
    usual = python(USUAL, "--vault", str(sample_copy), *args)
    program = python(PROGRAM, "--vault", str(sample_copy), *args)
    assert (program.returncode, program.stdout, program.stderr) == (usual.returncode, usual.stdout, usual.stderr)


def test_output_still_buffered_is_written_out(sample_copy):
    """What the process holds in its buffers at the end (a command's printed lines, a caller's:
    to a pipe, Python buffers by blocks) is written out before it ends."""
    before = "import sys; sys.stdout.write('a line before the command\\n')\n"
    result = python(before + PROGRAM, "--vault", str(sample_copy), "check")
    assert result.returncode == 0
    assert result.stdout.startswith(b"a line before the command\n") and b"documents, 0 error(s)" in result.stdout


def test_a_slow_reader_gets_the_whole_output(builder):
    root = big_vault(builder)
    args = ("--vault", str(root), "show", "--json", "mem-note-long")
    expected = python(USUAL, *args).stdout
    assert len(expected) > 256 * 1024
    process = subprocess.Popen(
        [sys.executable, "-c", PROGRAM, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=ENV
    )
    assert process.stdout is not None and process.stderr is not None
    time.sleep(0.5)  # the process fills the pipe and waits for its reader
    read = b""
    while chunk := process.stdout.read(16 * 1024):
        read += chunk
        time.sleep(0.01)
    assert process.wait(timeout=60) == 0, process.stderr.read()
    process.stderr.close()
    process.stdout.close()
    assert read == expected


def test_a_reader_that_closes_the_pipe_gets_the_usual_ending(builder):
    root = big_vault(builder)
    args = ("--vault", str(root), "show", "--json", "mem-note-long")
    python(USUAL, *args)  # the store built: both runs below read it alike

    def closed_early(script: str) -> tuple[int, bytes]:
        process = subprocess.Popen(
            [sys.executable, "-c", script, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=ENV
        )
        assert process.stdout is not None and process.stderr is not None
        process.stdout.read(10)
        process.stdout.close()
        code = process.wait(timeout=60)
        said = process.stderr.read()
        process.stderr.close()
        return code, said

    usual, program = closed_early(USUAL), closed_early(PROGRAM)
    assert program == usual
