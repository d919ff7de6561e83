"""Where a kept row lives: the same row for a name whatever kind of string holds it, a pair's row
the row of its ids joined by a tab."""

from __future__ import annotations

import zlib

from workbench.core.services.row_keys import row_of, rows_of


class Named(str):
    """A string of another class (what a YAML loader or a caller's own type may hand over)."""


def test_a_name_is_placed_by_its_text_whatever_class_holds_it():
    for name in ("adr-0001", "a", "mem-\ud800-lone"):
        assert row_of(Named(name), 1000) == row_of(name, 1000) == rows_of([name], 1000)[0]


def test_a_pair_is_placed_by_its_ids_joined_by_a_tab():
    assert row_of(("adr-1", "adr-2"), 4096) == zlib.crc32(b"adr-1\tadr-2") % 4096
