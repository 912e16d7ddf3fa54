"""Shell lines of a notebook written on Kaggle or Colab pointed at the run's folders, or muted.

Notebooks fetch and arrange their data with shell lines: ``!cp /content/drive/MyDrive/train.csv
.``, ``!unzip -q /content/drive/MyDrive/comp.zip -d data``, ``!mkdir -p /kaggle/working/models``,
``!ls /kaggle/input``, ``%cd /kaggle/input/comp``, a ``%%bash`` cell.  A run has none of those
folders: a ``!`` line prints an error and the notebook goes on without what it made (a later
``np.save("/kaggle/working/models/m.npy")``, pointed at ``./models``, then fails), and a
``%%bash`` cell stops the notebook.  :func:`point_shell_lines` rewrites every path of a shell
line that lies outside the run (under ``/kaggle``, ``/content``, Colab's Drive, or ``../input``)
by ``path_rules`` (``input/...``, ``./...``, ``./kaggle_temp/...``); a line holding such a path
that has no place in the run becomes a no-op with the line as a comment, saying why:

- a copy or unpack (``cp``, ``rsync``, ``ln``, ``unzip``, ``tar``, ``7z``, ``unrar``) whose
  source is not among the task's data (the archive on Drive the data came from): the data is
  already in ``./input``, where the notebook's reads are pointed; one that writes outside the
  work folder (``!cp submission.csv /content/drive/MyDrive/``);
- ``cd`` into a data folder (``%cd /kaggle/input/comp``; ``os.chdir(...)`` on a line of its
  own too, into ``input`` or a Kaggle or Colab folder): a run stays in its work folder, where
  ``input/...`` is read;
- ``rm``, ``mv``, ``gunzip`` and the like on the task's data or on the work folder itself
  (``!rm -rf /kaggle/working/*`` would delete ``./input`` with it), and any other line with an
  outside path that maps to nothing (``!ls /content/drive/MyDrive``).

Without network (a run's kernels have none) a package install, a download (``!kaggle
competitions download -c titanic``, ``!wget https://...``, ``!curl -O ...``, ``!gdown ...``,
``!git clone https://...``) and a command naming what such a download would make (``!unzip
titanic.zip``, in the same cell or a later one: :func:`fetched_names`) are muted the same way,
with the reason (``network_lines``); a ``%%bash`` cell's ``pip install`` too (a ``!pip install``
line was muted by ``data_paths`` before).

Shell lines are ``!...`` lines (``files = !ls ...`` too) and ``%cd``, ``%ls``, ``%mkdir``,
``%cp``, ``%mv``, ``%rm`` line magics in a Python cell (muted as ``pass``, or ``files = []``, as
installs are), and the lines of a ``%%bash``, ``%%sh``, ``%%shell`` or ``%%script bash`` cell
(muted as ``:``, the shell's no-op; a line continued with ``\\`` as a whole).  The file of
``%%writefile /kaggle/working/utils.py`` is pointed at the work folder too.

A move into the data folder named as the notebook names it (``%cd data``, ``os.chdir("data")``
for a ``data/`` folder beside it) is muted too, and after it the move back (``%cd ..``) and a
file written one folder up (``to_csv("../submission.csv")``, beside the notebook), which in a
run is the work folder: :class:`CdState` carries the move from cell to cell.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .network_lines import (
    NO_DOWNLOAD,
    NO_FETCHED,
    NO_INSTALL,
    fetched_by,
    is_download,
    is_install,
    names_fetched,
)
from .path_rules import input_path, work_path

NO_COPY = "  # MLE-STAR: not run (the task's data is already in ./input)"
NO_CD = "  # MLE-STAR: not run (a run stays in its work folder and reads the data from ./input)"
NO_CD_BACK = (
    "  # MLE-STAR: not run (the run never moved into the data folder: it stays in its work folder)"
)
# a file written one folder up: beside the notebook, that is in the work folder
_WRITE_UP = re.compile(r"""(\.to_\w+\(\s*[rR]?)(['"])\.\./(?=[^/'"]+\2)""")


@dataclass
class CdState:
    """Whether the notebook's cells so far moved into its data folder (a move the run muted):
    its move back and its writes one folder up are then pointed at the work folder."""

    into_data: bool = False


NO_CHANGE = "  # MLE-STAR: not run (it would change the task's data or empty the run's work folder)"
NO_SHELL = "  # MLE-STAR: not run (it names a folder a run does not have)"
MUTED = "# MLE-STAR: not run ("  # in every muted line

# a path outside the run: Kaggle's folders, Colab's (its Drive too), Kaggle's old ../input
_OUTSIDE = re.compile(
    r"^(?:/kaggle|/content|/gdrive|(?:\./)?(?:\.\./)+input|(?:/content/)?g?drive/My ?Drive)(?:/|$)"
)
# a shell line of a Python cell: !cmd, !!cmd, files = !cmd, %cd and the like
_PY_SHELL = re.compile(
    r"^(?P<indent>[ \t]*)(?:(?P<var>[A-Za-z_]\w*)[ \t]*=[ \t]*)?"
    r"(?P<line>(?:!!?|%(?P<magic>cd|ls|mkdir|cp|mv|rm|rmdir|cat)\b)(?P<cmd>.*))$"
)
# os.chdir("...") on a line of its own: Python's %cd
_CHDIR = re.compile(
    r"""^(?P<indent>[ \t]*)(?P<line>(?:os\.)?chdir\(\s*[rR]?(?P<q>['"])(?P<path>[^'"\n]*)(?P=q)\s*\)"""
    r"[ \t]*(?:#.*)?)$"
)
# %cd data on a line of its own
_CD_MAGIC = re.compile(
    r"""^(?P<indent>[ \t]*)(?P<line>%cd[ \t]+(?P<path>[^\s#;]+)[ \t]*(?:#.*)?)$"""
)
# %run helper.py / %load utils.py / %run -i ../src/prep.ipynb: a file of the notebook's own
_RUN_FILE = re.compile(
    r"""^(?P<head>[ \t]*%(?:run|load)(?:[ \t]+-[\w]+)*[ \t]+)(?P<q>['"]?)"""
    r"""(?P<file>[^\s'"]+\.(?:py|ipynb))(?P=q)(?P<tail>.*)$"""
)
_SHELL_CELL = re.compile(r"^%%(?:bash|sh|shell|script[ \t]+(?:ba)?sh)\b")
_WRITEFILE = re.compile(r"^%%writefile\b")
# a word of a command line (quotes and escapes inside it), or an operator between commands
_TOKEN = re.compile(r"""(?P<op>&&|\|\||[;|&])|(?P<word>(?:"[^"]*"|'[^']*'|\\.|>&|[^\s'"\\;&|])+)""")
# an option glued to its value: --output=/kaggle/working/x, 7z's -o/kaggle/working
_OPTION = re.compile(r"^(?:--?[A-Za-z][\w-]*=|-o(?=/))")
_COPY = frozenset({"cp", "rsync", "ln", "unzip", "tar", "7z", "7za", "unrar"})
_CHANGE = frozenset({"rm", "rmdir", "mv", "gunzip", "bunzip2", "unxz", "chmod", "chown", "shred"})
_DEST_FLAGS = {"unzip": ("-d",), "tar": ("-C", "--directory="), "7z": ("-o",), "7za": ("-o",)}
_PREFIXES = frozenset({"sudo", "time", "nohup", "command"})
# commands that read the files they name (what a download would have fetched fails them too)
_USES = _COPY | _CHANGE | {"cd", "ls", "cat", "head", "tail", "python", "python3", "bash", "sh"}


@dataclass(frozen=True)
class _Where:
    """What a shell line is rewritten for: the task's data, whether the run has a network, and
    the names the notebook's downloads would make (``network_lines``)."""

    input_dir: Path
    network: bool = False
    fetched: frozenset[str] = frozenset()


@dataclass(frozen=True)
class _Word:
    """A word of a command line: where it stands, its option prefix, and the path it names."""

    start: int
    end: int
    text: str  # as written
    option: str  # "--out=" of "--out=/kaggle/working/x", else ""
    path: str  # unquoted, the option left out


def point_shell_lines(
    source: str,
    input_dir: Path,
    *,
    network: bool = False,
    fetched: frozenset[str] = frozenset(),
    cd: CdState | None = None,
) -> tuple[str, list[tuple[str, str]]]:
    """``source`` (a cell) with its shell lines' outside paths pointed at the run's folders or
    the lines muted (see the module docstring), and without ``network`` its installs, downloads
    and the commands that use what they would fetch (``fetched``: :func:`fetched_names`) muted;
    each changed line as ``(old, new)``."""
    lines = source.split("\n")
    changes: list[tuple[str, str]] = []
    where = _Where(input_dir, network, fetched)
    if _SHELL_CELL.match(lines[0]):
        out = lines[:1] + _shell_cell(lines[1:], where, changes)
    elif _WRITEFILE.match(lines[0]):
        out = [_writefile_line(lines[0], changes), *lines[1:]]
    else:
        cd = cd if cd is not None else CdState()
        out = [_python_line(ln, where, changes, cd) for ln in lines]
    return "\n".join(out), changes


def fetched_names(sources: Iterable[str]) -> frozenset[str]:
    """The names of what the download commands of these cells would make (``titanic.zip`` for
    ``!kaggle competitions download -c titanic``): in a run nothing is fetched, and a command
    naming one of them fails too."""
    out: set[str] = set()
    for source in sources:
        for cmd in _commands(source):
            for segment in _segments(cmd):
                words = [w.path for w in segment]
                out |= fetched_by(words[_command_at(segment) :])
    return frozenset(out)


def _commands(source: str) -> list[str]:
    """The shell command lines of a cell: its ``!`` lines, or the lines of a ``%%bash`` cell
    (continued lines together)."""
    lines = source.split("\n")
    if _SHELL_CELL.match(lines[0]):
        return "\n".join(lines[1:]).replace("\\\n", " ").split("\n")
    return [m.group("cmd") for ln in lines if (m := _PY_SHELL.match(ln)) and not m.group("magic")]


def is_shell_cell(source: str) -> bool:
    """Whether the cell runs in a shell (``%%bash``, ``%%sh``, ``%%shell``, ``%%script bash``)."""
    return bool(_SHELL_CELL.match(source))


def _python_line(
    line: str, where: _Where, changes: list[tuple[str, str]], cd: CdState | None = None
) -> str:
    """A line of a Python cell, a shell line's outside paths rewritten or the line muted."""
    cd = cd if cd is not None else CdState()
    moved = _CHDIR.match(line) or _CD_MAGIC.match(line)
    if moved is not None:
        path = moved.group("path").strip().strip("'\"")
        why = None
        if _into_data(path) or _beside_data(path, where.input_dir):
            cd.into_data, why = True, NO_CD
        elif cd.into_data and path.rstrip("/") == "..":
            cd.into_data, why = False, NO_CD_BACK
        if why is not None:
            new_line = f"{moved.group('indent')}pass  # {moved.group('line')}{why}"
            changes.append((line, new_line))
            return new_line
    if cd.into_data and _WRITE_UP.search(line):
        new_line = _WRITE_UP.sub(r"\1\2", line)
        changes.append((line, new_line))
        return new_line
    if (r := _RUN_FILE.match(line)) is not None:  # its own file, beside its data in ./input
        new_file = input_path(r.group("file"), where.input_dir)
        if new_file is None or new_file == r.group("file"):
            return line
        new_line = f"{r.group('head')}{r.group('q')}{new_file}{r.group('q')}{r.group('tail')}"
        changes.append((line, new_line))
        return new_line
    m = _PY_SHELL.match(line)
    if m is None:
        return line
    cmd = m.group("cmd")
    # a magic is its own command: %cd /kaggle/input → "cd" with the words after it
    new, reason = _rewrite(cmd, m.group("magic") or "", where)
    if reason is not None:
        var = m.group("var")
        body = f"{var} = []  # {var} = " if var else "pass  # "
        new_line = f"{m.group('indent')}{body}{m.group('line')}{reason}"
    elif new is not None and new != cmd:
        new_line = line[: m.start("cmd")] + new
    else:
        return line
    changes.append((line, new_line))
    return new_line


def _beside_data(path: str, input_dir: Path) -> bool:
    """Whether ``path``, relative, names the data folder as the notebook beside it does
    (``data`` for ``nb_folder/data``; the run reads it as ``./input``)."""
    if not path or path.startswith(("/", "~")) or path.strip("./") in ("", "input"):
        return False
    try:
        return (input_dir.parent / path).resolve() == input_dir.resolve()
    except OSError:
        return False


def _into_data(path: str) -> bool:
    """Whether ``os.chdir(path)`` moves into the data (``input``, as ``data_paths`` pointed it)
    or into a Kaggle or Colab folder a run does not have: reads of ``input/...`` then fail."""
    plain = re.sub(r"^(\./)+", "", path)
    inside = plain == "input" or plain.startswith("input/")
    return inside or (bool(_OUTSIDE.match(path)) and work_path(path) is None)


def _writefile_line(line: str, changes: list[tuple[str, str]]) -> str:
    """``%%writefile PATH``: a file written under Kaggle's working or scratch folder is written
    in the work folder (``%%writefile /kaggle/working/utils.py`` → ``./utils.py``)."""
    new = line
    for segment in _segments(line):
        for word in reversed(segment):
            if (there := work_path(word.path)) is not None:
                new = new[: word.start] + _quoted(word, there) + new[word.end :]
    if new != line:
        changes.append((line, new))
    return new


def _shell_cell(lines: list[str], where: _Where, changes: list[tuple[str, str]]) -> list[str]:
    """The lines of a ``%%bash`` cell (after its first), each command line (continued lines
    together) rewritten or muted as ``:``."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        end = i + 1
        while lines[end - 1].endswith("\\") and end < len(lines):
            end += 1
        group = lines[i:end]
        text = "\n".join(group)
        comment = text.lstrip().startswith("#")
        new, reason = (text, None) if comment else _rewrite(text, "", where)
        if reason is not None:
            indent = group[0][: len(group[0]) - len(group[0].lstrip())]
            muted = [f"{indent}: # {group[0].strip()}{reason}"]
            muted += [f"{indent}# {rest.strip()}" for rest in group[1:]]
            new = "\n".join(muted)
        if new is not None and new != text:
            changes.append((text, new))
            out += new.split("\n")
        else:
            out += group
        i = end
    return out


def _rewrite(cmd: str, magic: str, where: _Where) -> tuple[str | None, str | None]:
    """``cmd`` (a command line; ``magic``: the command a line magic stands for, its first word)
    with its outside paths rewritten, or ``None`` and the reason to mute the line."""
    new: dict[_Word, str] = {}
    for n, segment in enumerate(_segments(cmd)):
        words = [_Word(0, 0, magic, "", magic), *segment] if magic and n == 0 else segment
        found, reason = _segment_paths(words, where)
        if reason is not None:
            return None, reason
        new |= found
    out = cmd
    for word in sorted(new, key=lambda w: w.start, reverse=True):
        out = out[: word.start] + new[word] + out[word.end :]
    return out, None


def _segments(cmd: str) -> list[list[_Word]]:
    """The words of each command of ``cmd`` (split at ``&&``, ``||``, ``;``, ``|``, ``&``)."""
    segments: list[list[_Word]] = [[]]
    for m in _TOKEN.finditer(cmd):
        if m.group("op"):
            segments.append([])
            continue
        text = m.group("word")
        option = o.group(0) if (o := _OPTION.match(text)) else ""
        path = re.sub(r"""\\(.)|["']""", lambda e: e.group(1) or "", text[len(option) :])
        segments[-1].append(_Word(m.start(), m.end(), text, option, path))
    return [s for s in segments if s]


def _command_at(words: list[_Word]) -> int:
    """Where the command's name stands among its words (after ``sudo``, ``VAR=value``)."""
    return next(
        (i for i, w in enumerate(words) if w.path not in _PREFIXES and "=" not in w.text), 0
    )


def _offline_reason(words: list[_Word], at: int, where: _Where) -> str | None:
    """Why a run without network does not run the command (its name at ``at``): an install, a
    download, or a command that reads what a download would fetch (a copy's destination left
    out: ``unzip titanic.zip -d titanic``); ``None``: it runs."""
    if where.network:
        return None
    plain = [w.path for w in words[at:]]
    if is_install(plain):
        return NO_INSTALL
    if is_download(plain):
        return NO_DOWNLOAD
    name = plain[0].rsplit("/", 1)[-1] if plain else ""
    if name not in _USES or not where.fetched:
        return None
    dest = _destination(name, words, at)
    read = [w.path for i, w in enumerate(words) if i > at and i != dest]
    return NO_FETCHED if names_fetched(read, where.fetched) else None


def _segment_paths(words: list[_Word], where: _Where) -> tuple[dict[_Word, str], str | None]:
    """The new text of each outside path of one command, or the reason to mute the line."""
    input_dir = where.input_dir
    at = _command_at(words)
    name = words[at].path.rsplit("/", 1)[-1] if words else ""
    offline = _offline_reason(words, at, where)
    if offline is not None:
        return {}, offline
    outside = [(i, w) for i, w in enumerate(words) if i != at and _OUTSIDE.match(w.path)]
    if not outside:
        return {}, None
    mapped = {i: work_path(w.path) or input_path(w.path, input_dir) for i, w in outside}
    in_work = {i for i, w in outside if work_path(w.path) is not None}
    if name == "cd" and not set(mapped) <= in_work:
        return {}, NO_CD
    if name in _COPY:
        dest = _destination(name, words, at)
        if dest in mapped and dest not in in_work:
            return {}, NO_SHELL  # it writes outside the work folder (or into ./input)
        if any(new is None for new in mapped.values()):
            return {}, NO_COPY
    if name in _CHANGE and any(
        i not in in_work or mapped[i] in ("./", "./*", "./.") for i in mapped
    ):
        return {}, NO_CHANGE
    if any(new is None for new in mapped.values()):
        return {}, NO_SHELL
    return {words[i]: _quoted(words[i], new) for i, new in mapped.items() if new}, None


def _destination(name: str, words: list[_Word], at: int) -> int | None:
    """Which word a copy or unpack writes to: the value of ``-d`` (unzip), ``-C`` (tar), ``-o``
    (7z), else the last of two or more operands (cp, rsync, ln, unrar)."""
    flags = _DEST_FLAGS.get(name, ())
    for i, w in enumerate(words):
        if w.text in flags and i + 1 < len(words):
            return i + 1
        if w.option and w.option.rstrip("=") in [f.rstrip("=") for f in flags]:
            return i
    if flags:
        return None
    operands = [i for i, w in enumerate(words) if i > at and not w.text.startswith("-")]
    return operands[-1] if len(operands) >= 2 else None


def _quoted(word: _Word, new: str) -> str:
    """``new`` written as ``word`` was: its option prefix and quotes kept."""
    body = word.text[len(word.option) :]
    if body[:1] in ("'", '"'):
        return f"{word.option}{body[0]}{new}{body[0]}"
    return word.option + (
        new if re.fullmatch(r"[\w./*?\[\]{}$@%+=:,-]+", new) else shlex.quote(new)
    )


__all__ = [
    "MUTED",
    "NO_CD",
    "NO_CHANGE",
    "NO_COPY",
    "NO_SHELL",
    "fetched_names",
    "is_shell_cell",
    "point_shell_lines",
]
