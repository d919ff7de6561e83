"""The local time zone, as a key: what turns a moment into the curator's date.

A file with no date of its own is dated by its modification time, in the local zone (a flavour's
`view`); a kept answer may show times in it. A person who travels, or whose machine's zone is
changed, must not be shown dates worked out in the zone before: what keeps them (the derived
store, through `Flavour.reading`; a kept answer's fingerprint) keeps them under this key, and a
change of zone finds nothing kept under it. Cheap: the quick path asks it without importing more.
"""

from __future__ import annotations

import functools
import hashlib
import os
import time

__all__ = ["local_zone"]

_SYSTEM_ZONE = "/etc/localtime"


def local_zone() -> str:
    """The zone's rules as named (the `TZ` variable, else the system's zone file, by its content:
    a link into the zone database or a copy of one), with the names and offsets this process reads
    them as."""
    return _zone(os.environ.get("TZ"))


@functools.lru_cache(maxsize=8)
def _zone(named: str | None) -> str:
    if named is None:
        try:
            with open(_SYSTEM_ZONE, "rb") as file:
                named = "file:" + hashlib.sha256(file.read()).hexdigest()[:16]
        except OSError:
            named = ""
    return f"{named}|{'/'.join(time.tzname)}|{time.timezone}|{time.altzone}|{time.daylight}"
