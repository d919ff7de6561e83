"""How a link's written target finds an id (`flavours.Ids`): exactly, ignoring case (the first id
in sorted order), by the last part of a path ignoring case (the shallowest). Its lookups are made
in as few steps as they can at the first link that asks them; held here against the rule written
out plainly, over ids that clash in case and in name."""

from __future__ import annotations

import random

from workbench.core.flavours import Ids


def plainly(ids: list[str], candidate: str, by_name: bool) -> str | None:
    """The rule as the docs say it, one id at a time."""
    if candidate in ids:
        return candidate
    folded = sorted(i for i in ids if i.casefold() == candidate.casefold())
    if folded:
        return folded[0]
    if not by_name:
        return None
    name = candidate.rsplit("/", 1)[-1].casefold()
    named = [i for i in ids if i.rsplit("/", 1)[-1].casefold() == name]
    return min(named, key=lambda i: (i.count("/"), len(i), i)) if named else None


def test_every_lookup_gives_what_the_rule_says() -> None:
    rng = random.Random(7)
    words = ["adr-1", "ADR-1", "Adr-1", "notes/adr-1", "a/b/ADR-1", "Straße", "STRASSE", "x/Straße", "q"]
    ids = sorted({rng.choice(["", "p/", "P/", "p/q/"]) + rng.choice(words) for _ in range(60)}) + ["z"]
    rng.shuffle(ids)
    asked = words + ["adr-2", "P/ADR-1", "strasse", "x/strasse", "Z", "nothing/q", ""]
    for by_name in (False, True):
        for first in asked:  # the lookups made at each kind of first question
            found = Ids(list(ids))
            for candidate in [first, *asked]:
                assert found.find(candidate, by_name) == plainly(ids, candidate, by_name), (first, candidate)
