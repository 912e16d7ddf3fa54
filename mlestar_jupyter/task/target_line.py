"""A description's ``Target:`` line (in English and five other languages): the column(s) it
names as what is predicted.
"""

from __future__ import annotations

import re

# "Target: price", "- target column: `y`", "Targets: Weight, Waist, Pulse" (several: multi-target)
# and the same line in German, Spanish, French, Italian, Portuguese ("Zielvariable: Preis",
# "Variable objetivo: precio": hunt O)
_TARGET_WORDS = (
    r"targets?(?:\s+columns?)?|zielvariablen?|zielgr(?:ö|oe)(?:ß|ss)en?|zielspalten?"
    r"|variables?\s+(?:objetivo|cibles?|alvo)|colonnes?\s+cibles?|variabil[ei]\s+target"
)
TARGET_LINE = re.compile(
    rf"(?im)^\s*[-*]?\s*(?:{_TARGET_WORDS})\s*:\s*`?([\w .-]+?(?:`?\s*,\s*`?[\w .-]+?)*)`?\s*$"
)


def targets_named(line: re.Match[str]) -> list[str]:
    """The columns a 'Target:' line names (several, comma-separated, for a multi-target task)."""
    return [t.strip(" `") for t in line.group(1).split(",") if t.strip(" `")]


__all__ = ["TARGET_LINE", "targets_named"]
