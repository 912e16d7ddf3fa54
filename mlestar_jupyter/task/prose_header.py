"""The submission's header as a README or description says it in prose, for a task folder with
no sample submission.

People who publish a task without ``sample_submission.csv`` write the header in a sentence:
"Submit a CSV with header `image,label`", "The submission file must contain the columns
`PassengerId` and `Survived`", "two columns, id and label", or show the file in a code block
under a sentence about the submission.  :func:`submission_header` reads those; a sentence that
is not about the submission (or is about the training data), a list of words that are not
names, or two different headers named give ``None``: the task is then read as before.
"""

from __future__ import annotations

import re

# a sentence about the file handed in (and not the training data, whose columns it may list)
_ABOUT = re.compile(
    r"(?i)\bsubmi(?:t|ssion)|\bheader\b|\b(?:output|predictions?|result)s?\s+(?:csv\s+)?file"
)
_NOT_ABOUT = re.compile(r"(?i)\btrain(?:ing)?\b")
_NAME = r"[A-Za-z_][\w-]*"
_QUOTED = rf"`\s*{_NAME}\s*`|\"{_NAME}\"|'{_NAME}'"
_ITEM = rf"(?:{_QUOTED}|{_NAME})"
# `image,label` or `id, label, score`: one quoted comma list
_COMMA_LIST = re.compile(rf"`\s*({_NAME}(?:\s*,\s*{_NAME})+)\s*`")
# columns `PassengerId` and `Survived`; columns: id, label; two columns, id and label
_COLUMNS = re.compile(
    rf"(?i)\bcolumns?\b\s*(?:named|called|:|,)?\s*(?P<list>{_ITEM}(?:\s*(?:,\s*and|,|and|&)\s*{_ITEM})+)"
)
# a file shown in a code block: its first line is the header
_BLOCK = re.compile(r"```[\w-]*\n(?P<head>[^\n]+)\n")
# words a sentence puts where names would be: "columns for each of the test files"
_WORDS = frozenset(
    "a an and are as be each for from in is its must of one or per should that the their "
    "then this to two three which with your".split()
)


def _sentences(text: str) -> list[str]:
    """``text`` cut into sentences, list items and headings (code blocks left out)."""
    prose = re.sub(r"```.*?```", "\n\n", text, flags=re.S)
    return [s for s in re.split(r"(?<=[.!?])\s+|\n\s*(?=[-*#])|\n\s*\n", prose) if s.strip()]


def _names(listed: str) -> tuple[str, ...] | None:
    """The names a list starts with (``a, b and c``; quoted ones when it starts quoted: not the
    sentence's next words, ``..., one row per file``), or ``None`` when fewer than two."""
    items = [i for i in re.split(r"\s*(?:,\s*and|,|\band\b|&)\s*", listed.strip()) if i]
    quoted = items[0][0] in "`'\""
    names = []
    for item in items:
        name = item.strip("`'\" ")
        if (item[0] in "`'\"") != quoted or name.lower() in _WORDS:
            break  # the list ended: the sentence goes on
        names.append(name)
    return tuple(names) if len(names) >= 2 else None


def _from_sentence(sentence: str) -> list[tuple[str, ...]]:
    """The headers one sentence about the submission names."""
    if not _ABOUT.search(sentence) or _NOT_ABOUT.search(sentence):
        return []
    found = [
        tuple(n.strip() for n in m.group(1).split(",")) for m in _COMMA_LIST.finditer(sentence)
    ]
    if not found:
        found = [n for m in _COLUMNS.finditer(sentence) if (n := _names(m.group("list")))]
    return found


def _from_blocks(text: str) -> list[tuple[str, ...]]:
    """The headers of files shown in code blocks under a sentence about the submission."""
    found = []
    for m in _BLOCK.finditer(text):
        # the paragraph above the block, and the heading above that one
        above = [p for p in re.split(r"\n\s*\n", text[: m.start()]) if p.strip()][-2:]
        head = [c.strip() for c in m.group("head").split(",")]
        named = len(head) >= 2 and all(re.fullmatch(_NAME, c) for c in head)
        about = any(_ABOUT.search(p) for p in above) and not _NOT_ABOUT.search(above[-1])
        if named and about:
            found.append(tuple(head))
    return found


def submission_header(text: str) -> tuple[str, ...] | None:
    """The submission's columns ``text`` names clearly (see the module docstring), else ``None``."""
    found = [h for s in _sentences(text) for h in _from_sentence(s)] + _from_blocks(text)
    distinct = list(dict.fromkeys(found))
    return distinct[0] if len(distinct) == 1 else None


# "the file name without its extension", "the file's stem", "no extension"
_STEM = re.compile(
    r"(?i)\bwithout\s+(?:the\s+|its\s+|a\s+|any\s+)?(?:file\s+)?(?:extension|suffix|`?\.\w+`?)"
    r"|\bno\s+(?:file\s+)?extension|\bstem\b|\bextension\s+(?:removed|stripped|dropped)"
)
# "the file name with its extension", "including the extension"
_WITH_EXTENSION = re.compile(
    r"(?i)\b(?:with|including|incl\.?|keeping)\s+(?:the\s+|its\s+|their\s+)?(?:file\s+)?"
    r"extensions?\b"
)
_HEADING = re.compile(r"\s*#")


def _passages(text: str) -> list[tuple[str, bool]]:
    """``(paragraph, about)`` for each paragraph of ``text`` (a fenced code block is one):
    ``about`` when it speaks of the submission, follows a heading that does, or is a code block
    right under a paragraph that does."""
    parts = [
        p.strip()
        for p in re.split(r"(```.*?```)|\n\s*\n", text, flags=re.S)
        if p is not None and p.strip()
    ]
    out: list[tuple[str, bool]] = []
    section = False  # under a heading about the submission
    for part in parts:
        code = part.startswith("```")
        if _HEADING.match(part):
            section = bool(_ABOUT.search(part.splitlines()[0]))
        about = (
            section
            or (not code and bool(_ABOUT.search(part)))
            or (code and bool(out) and out[-1][1] and not out[-1][0].startswith("```"))
        )
        out.append((part, about))
    return out


def _example_ids(block: str, id_col: str | None) -> list[str]:
    """The ids of the rows a code block shows under its header (the id column's cells, else the
    first column's)."""
    lines = [ln.strip() for ln in block.strip("`").splitlines()[1:] if ln.strip()]
    if len(lines) < 2 or "," not in lines[0]:
        return []
    header = [c.strip() for c in lines[0].split(",")]
    at = header.index(id_col) if id_col in header else 0
    cells = [ln.split(",") for ln in lines[1:] if "," in ln and not ln.startswith("...")]
    return [c[at].strip() for c in cells if len(c) > at]


def ids_with_extension(text: str, extensions: tuple[str, ...], id_col: str | None) -> bool | None:
    """Whether the submission's ids are the files' names with their extension (``img1003.jpg``)
    as ``text`` (a README) shows them where it speaks of the submission: an example row, a file
    name as an example (``id: the image file name, e.g. img1003.jpg``) or the words "with its
    extension"; ``False`` where it asks for the name without the extension (or shows such rows);
    ``None`` where it says neither, or both."""
    ext = "|".join(re.escape(e.lstrip(".")) for e in extensions)
    named = re.compile(rf"(?i)(?<![\w*/.-])[\w-]+\.(?:{ext})\b")
    said: set[bool] = set()
    for part, about in _passages(text):
        if not about:
            continue
        if part.startswith("```"):
            ids = _example_ids(part, id_col)
            if ids:
                said.add(all(named.fullmatch(i) for i in ids))
            continue
        for sentence in _sentences(part):
            if _NOT_ABOUT.search(sentence) and not _ABOUT.search(sentence):
                continue
            if _STEM.search(sentence):
                said.add(False)
            if _WITH_EXTENSION.search(sentence) or named.search(sentence):
                said.add(True)
    return said.pop() if len(said) == 1 else None


__all__ = ["ids_with_extension", "submission_header"]
