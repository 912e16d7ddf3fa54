"""What one path written on Kaggle, Colab or a laptop becomes in a run's work folder.

Text-to-text rules, shared by ``data_paths`` (a cell's Python string literals) and
``shell_lines`` (``!cp ...`` lines, ``%%bash`` cells); each returns the new path, or ``None`` to
keep the path as written:

- :func:`input_path`: a path naming a file or folder of the task's ``input/`` by its last
  components (``/kaggle/input/<competition>/train.csv``, ``../input/test.csv``,
  ``/content/drive/MyDrive/bc/train.csv`` → ``input/...``), a folder in the Kaggle layout
  (``.../input``, ``.../input/<competition>`` → ``input``), a glob pattern whose folder is one of
  those (``/kaggle/input/*/*.csv`` → ``input/*.csv``);
- :func:`work_path`: Kaggle's working folder, where a Kaggle notebook writes its outputs, is the
  candidate's own work folder (``/kaggle/working/sub.csv`` → ``./sub.csv``), and Kaggle's scratch
  folder ``/kaggle/temp`` a folder in it (``/kaggle/temp/cache`` → ``./kaggle_temp/cache``): a
  candidate writes nothing outside its work folder;
- :func:`fstring_input_path`: the text of an f-string, whose literal folder before its first
  placeholder follows :func:`input_path` (``/kaggle/input/bc/{name}.csv`` →
  ``input/{name}.csv``; a placeholder that stands for the competition's folder goes:
  ``/kaggle/input/{COMP}/train.csv`` → ``input/train.csv``).
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

INPUT = "input"
TEMP = "kaggle_temp"  # where Kaggle's scratch folder goes, inside the work folder
# Kaggle's working folder → the work folder; Kaggle's scratch folder → ./kaggle_temp
_WORK_FOLDERS = (
    (re.compile(r"^/kaggle/working(?=/|$)/?"), "./"),
    (re.compile(r"^/kaggle/temp(?=/|$)"), f"./{TEMP}"),
)
_WILDCARD = re.compile(r"[*?\[]")
FILE_SUFFIX = re.compile(r"\.[A-Za-z0-9]{1,8}$")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def work_path(text: str) -> str | None:
    """``text`` under Kaggle's working or scratch folder made a path of the work folder
    (``/kaggle/working/sub.csv`` → ``./sub.csv``, ``/kaggle/temp/x`` → ``./kaggle_temp/x``),
    else ``None``."""
    for folder, there in _WORK_FOLDERS:
        if folder.match(text):
            return folder.sub(there, text, count=1)
    return None


def written_here(text: str) -> str | None:
    """A file a call writes at an absolute path of the author's machine (Colab's
    ``/content/submission.csv``, ``C:\\Users\\me\\sub.csv``, ``~/out/sub.csv``) or above the
    notebook's folder in a folder beside it (``../submissions/submission.csv``: outside a run's
    work folder, in a folder it lacks), made a path of the work folder (``./submission.csv``),
    where a run can write and find it; ``None`` for another relative path (``../sub.csv``, which
    ``shell_lines`` reads after a ``%cd``) or a folder."""
    if "://" in text or not re.match(
        r"^(?:/|~|[A-Za-z]:[\\/]|\.\.[\\/]+[^\\/.][^\\/]*[\\/])", text
    ):
        return None
    name = re.split(r"[\\/]+", text)[-1]
    return f"./{name}" if FILE_SUFFIX.search(name) else None


def input_path(text: str, input_dir: Path) -> str | None:
    """What ``text`` becomes (``input/...``), or ``None`` when it is left as it is."""
    if "://" in text or not (("/" in text) or ("\\" in text) or FILE_SUFFIX.search(text)):
        return None
    trailing = "/" if text.endswith(("/", "\\")) else ""
    comps = [c for c in re.split(r"[\\/]+", text) if c not in ("", ".", "..")]
    if comps and re.fullmatch(r"[A-Za-z]:", comps[0]):  # a Windows drive
        comps = comps[1:]
    if not comps:
        return None
    as_written = re.sub(r"^(\./)+", "", text.replace("\\", "/"))
    if as_written == INPUT or as_written.startswith(INPUT + "/"):
        return None  # already read from ./input
    wild = next((i for i, c in enumerate(comps) if _WILDCARD.search(c)), None)
    if wild is not None:
        return _pattern_path(comps, wild, input_dir, trailing)
    for i in range(len(comps)):  # the longest tail naming an entry of input/
        tail = comps[i:]
        if input_dir.joinpath(*tail).exists():
            return PurePosixPath(INPUT, *tail).as_posix() + trailing
    # a folder in the Kaggle layout: .../input or .../input/<competition>
    if comps[-1] == INPUT or (len(comps) >= 2 and comps[-2] == INPUT and "." not in comps[-1]):
        return INPUT + trailing
    return None


def _pattern_path(comps: list[str], wild: int, input_dir: Path, trailing: str) -> str | None:
    """A glob pattern (``comps[wild]`` is the first part with a wildcard) whose folder part
    names ``input/`` or a folder of it: ``/kaggle/input/*/*.csv`` → ``input/*.csv`` (the
    competition's folder is the wildcard after ``input``), ``../input/train/*.jpg`` →
    ``input/train/*.jpg``, ``data/images/*.png`` → ``input/images/*.png``."""
    head, rest = comps[:wild], comps[wild:]
    if not head and any(input_dir.glob(PurePosixPath(*rest).as_posix())):
        return PurePosixPath(INPUT, *rest).as_posix() + trailing  # glob("*.csv") beside the data
    if head and head[-1] == INPUT:
        if len(rest) > 1 and rest[0] == "*":
            rest = rest[1:]  # /kaggle/input/*/...: the competition's folder
        return PurePosixPath(INPUT, *rest).as_posix() + trailing
    if len(head) >= 2 and head[-2] == INPUT and not (input_dir / head[-1]).is_dir():
        return PurePosixPath(INPUT, *rest).as_posix() + trailing  # input/<competition>/*.csv
    for i in range(len(head)):  # the longest folder tail naming a folder of input/
        if input_dir.joinpath(*head[i:]).is_dir():
            return PurePosixPath(INPUT, *head[i:], *rest).as_posix() + trailing
    return None


def fstring_input_path(text: str, input_dir: Path) -> str | None:
    """What the text of an f-string becomes: its literal folder before the first placeholder
    pointed at ``input/`` as a plain string's would be, the rest kept
    (``../input/{name}.csv`` → ``input/{name}.csv``); a placeholder right after Kaggle's
    ``input`` folder is the competition's folder, dropped when what follows it names entries
    of ``input/`` (``/kaggle/input/{COMP}/train.csv`` → ``input/train.csv``).  ``None``: kept."""
    head, brace, rest = text.partition("{")
    if not brace:
        return input_path(text, input_dir)  # an f-string without placeholders
    folder, slash, stem = head.replace("\\", "/").rpartition("/")
    if re.search(r"\s", folder.split("/", 1)[0]):
        return None  # a message naming a path: print(f"Loading /kaggle/input/{name}")
    new = input_path(folder + slash, input_dir) if slash else None
    if new is None:
        return None
    tail = stem + brace + rest
    comps = [c for c in folder.split("/") if c not in ("", ".")]
    competition = re.match(r"\{[^{}]*\}(?:/|$)", tail)
    if comps and comps[-1] == INPUT and not stem and competition:
        after = tail[competition.end() :]
        pattern = _PLACEHOLDER.sub("*", after).lstrip("/")
        if pattern and not any(input_dir.glob(pattern)):
            return None  # a file of another Kaggle dataset: not the task's
        return new + after if after or tail.endswith("/") else new.rstrip("/")
    return new + tail


__all__ = ["FILE_SUFFIX", "INPUT", "TEMP", "fstring_input_path", "input_path", "work_path"]
