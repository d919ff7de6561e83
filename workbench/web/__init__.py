"""The browser face: `workbench serve`, the TUI in a browser page through textual-serve, one app
process per page over the same vault (`server.py`), behind a door that wants the token and checks
Host and Origin on every request (`door.py`). It loads aiohttp and textual-serve only when run.
"""
