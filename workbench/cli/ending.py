"""How a `workbench` process ends: at once, where the interpreter's own ending has nothing left to do.

That ending frees every object still alive, one by one, after a last collection that walks them
all: after a conflicts queue or a review list answered over 10,000 records, tens of milliseconds
of CPU spent giving memory back to a process about to be gone. `end` skips it (`os._exit`) only
where it would do nothing else:

- no thread but this one: a non-daemon one (a first open's full-text build) is waited for by the
  usual ending, and a daemon one may be in the middle of a store's write;
- no `atexit` duty, nor one of `threading`'s own (registered by the code, a library or a caller:
  `multiprocessing`, `logging`, `weakref.finalize`, `concurrent.futures`, a coverage tool);
- no profiler or tracer (`python -m cProfile -m workbench.cli` writes its figures once the
  program returns; a debugger, a coverage tool);
- every derived store closed (`Vault.close_every_store`): the last close of a store folds its
  write-ahead log back into the file and removes it, as freeing it did;
- stdout and stderr written out: flushed here, which waits for a slow reader; where that fails
  (a reader that closed the pipe), the usual ending reports it, and exits, as it always did.

Anything else, and any process whose interpreter cannot say: the usual ending (`SystemExit`).
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
import threading
from typing import NoReturn

__all__ = ["end", "nothing_left"]

# The module that makes the derived stores: where it was never imported (an answer kept for an
# unchanged vault), none is open, and the core's facade need not be imported to close none.
STORES = "workbench.core.records.derived_store"


def nothing_left() -> bool:
    """Whether the interpreter's ending would do nothing but free memory: no other thread, no
    `atexit` duty, none of `threading`'s (private counts of CPython's: where they are missing,
    there may be some), no profiler or tracer."""
    duties = getattr(atexit, "_ncallbacks", None)
    waits = getattr(threading, "_threading_atexits", None)
    return (
        threading.active_count() == 1
        and duties is not None
        and duties() == 0
        and waits == []
        and sys.getprofile() is None
        and sys.gettrace() is None
    )


def end(code: int, collecting: bool = True) -> NoReturn:
    """End the process with the exit status `code`: at once where `nothing_left`, once every
    derived store is closed and stdout and stderr are written out; else the usual way, the
    cyclic collector enabled again first where it was before the command paused it
    (`collecting`), as the threads left may go on for a while."""
    if isinstance(code, int) and nothing_left() and _written_out():  # SystemExit says what else means
        if STORES in sys.modules:
            from ..core import Vault

            Vault.close_every_store()
        os._exit(code)
    if collecting:
        gc.enable()
    raise SystemExit(code)


def _written_out() -> bool:
    """Flush every standard stream there is; False where one fails (left to the usual ending)."""
    for stream in dict.fromkeys((sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)):
        if stream is None:
            continue
        try:
            stream.flush()
        except Exception:  # a closed stream, a reader gone, a stand-in without a flush
            return False
    return True
