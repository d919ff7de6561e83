"""One page's app process, ended for good: asked to quit, waited for, and its pipes collected.

textual-serve's `AppService.stop` sends the app "quit" and waits for its reading task, which ends
when the app's output ends, not when the process has exited; and if the waiting is cancelled (as
stopping the server cancels every page's handler) the reading task is cancelled with it and the
app is left running. The server's event loop then closes with the process still alive and its
subprocess transport still open; when the process exits later, asyncio's child watcher finds the
loop closed and the transport's finalizer raises "Event loop is closed" on the server's way out.

`App.end` does the whole of it once, whoever asks first (the page's handler or the server's
shutdown), and cannot be cancelled half-way by the handler being cancelled: quit, wait for the
process (terminate it, then kill it, if it does not go), then read what is left of its output and
close its pipes, so the loop closes the transport before it closes itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable

from textual_serve.app_service import AppService

__all__ = ["App"]

QUIT_SECONDS = 10.0  # an app saving a change on its way out may take a moment; a hung one is not waited for longer
SIGNAL_SECONDS = 5.0  # after terminate, before kill


class App(AppService):
    """textual-serve's app service whose ending waits for the process and closes its transport."""

    _ending: asyncio.Task[None] | None = None

    async def end(self) -> None:
        """End the app (once, however many ask); safe to call when it never started."""
        if self._ending is None:
            self._ending = asyncio.create_task(self._end())
        await asyncio.shield(self._ending)

    async def _end(self) -> None:
        process = self._process
        if process is None:  # the socket went before the process was started: nothing to end
            return
        await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)

        async def told_to_quit() -> None:
            if process.returncode is None:
                await self.send_meta({"type": "quit"})  # False when its stdin is gone: it is going too
            await process.wait()

        if not await _within(told_to_quit(), QUIT_SECONDS):  # a hung app may not even read its stdin
            with contextlib.suppress(ProcessLookupError):
                process.terminate()  # the web driver turns SIGTERM into the app's own exit
            if not await _within(process.wait(), SIGNAL_SECONDS):
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        if self._task is not None:  # the process is gone, so its output ends, and the reader's loop with it
            _, reading = await asyncio.wait([self._task], timeout=SIGNAL_SECONDS)
            for task in reading:  # only when a process the app started still holds its output open
                task.cancel()
            self._task = None
        # Close stdin, read stdout and stderr to their end and close them: the transport closes now.
        if process.stdin is not None:
            process.stdin.close()
        try:
            _, left = await asyncio.wait_for(process.communicate(), SIGNAL_SECONDS)
        except TimeoutError:
            return  # the same: that process keeps the pipes; the app itself has exited
        if left:  # textual-serve's reader writes what the app said on stderr; this is what it had not read
            sys.stdout.write(left.decode("utf-8", "replace"))


async def _within(work: Awaitable[object], seconds: float) -> bool:
    """Whether `work` finished within `seconds` (it is cancelled if not)."""
    try:
        await asyncio.wait_for(work, seconds)
    except TimeoutError:
        return False
    return True
