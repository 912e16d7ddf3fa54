"""The JupyterLab panel names every kind of change a run makes to a user's notebook, in the
widget's words: ``CHANGE_KINDS`` in ``labextension/src/status.ts`` is checked against
``agent.changes.CHANGE_KINDS`` (every ``PathChange.kind``) and ``widgets.progress.CHANGE_KINDS``
(what the log calls each), so a kind added on the Python side cannot be left out of the TS one."""

from __future__ import annotations

import re
from pathlib import Path

from mlestar_jupyter.agent.changes import CHANGE_KINDS as PATH_CHANGE_KINDS
from mlestar_jupyter.widgets.progress import CHANGE_KINDS as WIDGET_CHANGE_KINDS

STATUS_TS = Path(__file__).resolve().parents[1] / "labextension" / "src" / "status.ts"

# `['path', 'data path(s) pointed at ./input'],` or with a double-quoted label
_ENTRY = re.compile(r"""\[\s*'([^'\\]*)'\s*,\s*(?:'([^'\\]*)'|"([^"\\]*)")\s*\]""")


def ts_change_kinds() -> list[tuple[str, str]]:
    """The ``[kind, label]`` pairs of ``CHANGE_KINDS`` in status.ts, in order."""
    text = STATUS_TS.read_text(encoding="utf-8")
    found = re.search(r"const CHANGE_KINDS\b[^=]*=\s*\[(.*?)\n\];", text, re.S)
    assert found, "CHANGE_KINDS not found in status.ts"
    body = found.group(1)
    pairs = [(m[1], m[2] if m[2] is not None else m[3]) for m in _ENTRY.finditer(body)]
    # every entry was read (none skipped for an escape or a template string)
    assert len(pairs) == body.count("["), body
    return pairs


def test_ts_change_kinds_cover_every_path_change_kind() -> None:
    kinds = [k for k, _ in ts_change_kinds()]
    assert len(kinds) == len(set(kinds))
    assert set(kinds) == set(PATH_CHANGE_KINDS)


def test_ts_change_kinds_say_what_the_widget_says_in_its_order() -> None:
    assert ts_change_kinds() == [tuple(pair) for pair in WIDGET_CHANGE_KINDS]
