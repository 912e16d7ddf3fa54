"""Data paths of a user's notebook pointed at the task's ``./input`` folder, installs and
downloads muted.

The rules for one path are ``path_rules``'s; this module finds the paths in a cell.

In a run every candidate notebook executes in a fresh working folder whose ``./input`` is the
task's data; a notebook written elsewhere reads its files from where its author kept them:
``/kaggle/input/<competition>/train.csv``, ``../input/train.csv``, ``data/train.csv``,
``C:\\Users\\me\\train.csv``, or ``pd.read_csv("train.csv")``.  :func:`point_to_input` rewrites each
string literal that names a file or folder of the task's ``input/`` (by its last path
components) to ``input/<that entry>``, and a folder literal that ends in ``input`` or
``input/<competition>`` (the Kaggle layout) to ``input``, and a glob pattern whose folder part
is one of those to the same pattern under ``input`` (``/kaggle/input/*/*.csv`` →
``input/*.csv``); it returns what it changed, for the note the run shows.  A bare file name is
rewritten only as a call's first argument: in ``os.path.join(DATA, "train.csv")`` or
``DATA + "train.csv"`` it belongs to its folder.  In an f-string the literal folder before the
first placeholder is rewritten the same way (``f"/kaggle/input/bc/{split}.csv"`` →
``f"input/{split}.csv"``; a placeholder that stands for the competition's folder goes:
``f"/kaggle/input/{COMP}/train.csv"`` → ``f"input/train.csv"``).

Package installs run from a cell (``!pip install ...``, ``%conda install ...``, ``pip install``
in a ``%%bash`` cell) become ``pass`` (``:`` in a ``%%bash`` cell) with the line as a comment: a
run's kernels have no network, where pip would retry and fail; downloads (``!kaggle competitions
download``, ``!wget https://...``, ``!git clone ...``) and the commands that unpack what they
would fetch the same way (``network_lines``).  Lines only Colab runs become ``pass`` the same
way (``colab_lines``).  Shell lines (``!cp``, ``!unzip``, ``!mkdir``, ``%cd``, ``%%bash`` cells)
get their Kaggle and Colab paths pointed at the run's folders, or become ``pass`` with the
reason when a path has no place in a run (``shell_lines``).  What changed is recorded as
:class:`PathChange` items (``changes``), which the note says and proposals give back.

Kaggle's working folder (``/kaggle/working``, where a Kaggle notebook writes its outputs) is the
candidate's own work folder: ``/kaggle/working/submission.csv`` → ``./submission.csv``,
``/kaggle/working`` → ``./``, also in a call that writes, so
``sub.to_csv("/kaggle/working/submission.csv")`` writes where the run finds it.  Kaggle's
scratch folder is a folder of the work folder (``/kaggle/temp/cache`` →
``./kaggle_temp/cache``), so no candidate writes outside its work folder; it exists on Kaggle,
where notebooks write in it without making it, so the first cell pointed there gets a line
(``TEMP_LINE``, taken back in proposals as the lines of a fold loop are) that makes it.

A bare file name is also rewritten inside a list, tuple-in-brackets or dict literal
(``files = ["train.csv", "test.csv"]``, ``{"train": "train.csv"}``).  A folder of another name
assigned to a variable (``DATA = "data/"``, ``ROOT = Path("~/datasets/wine")``, an
environment variable's default: ``DATA = os.getenv("DATA_DIR", "data/")``) is pointed at
``input`` when the notebook joins that variable to a name of ``input/`` (``DATA + "train.csv"``,
``os.path.join(DATA, "train.csv")``, ``Path(DATA) / "train.csv"``, ``DATA / "train.csv"``,
``f"{DATA}/train.csv"``).

A file the notebook writes into such a folder pointed at ``input`` (which is read-only in a run)
is written, and read back, in the work folder: ``sub.to_csv(os.path.join(DATA, "sub.csv"))`` →
``sub.to_csv("./sub.csv")`` (a changed line, kind ``output``).

Left alone (but Kaggle's working and scratch folders, and an absolute path of the author's
machine, ``/content/submission.csv`` → ``./submission.csv``: ``path_rules.written_here``): the
first argument of a call that writes (``df.to_csv("train.csv")``, ``plt.savefig(...)``,
``np.save(...)``: an output, even named like an input), literals already
readable from the working folder (``input/...``, ``./input/...``),
URLs, f-strings whose literal part holds no folder (``f"{DATA}/train.csv"``: see above), text
on several lines, names that match nothing in ``input/`` (the notebook's
own outputs, ``submission.csv``), and a folder that nothing of ``input/`` is joined to.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from ..notebook import SolutionNotebook
from ..notebook.cell_head import with_head
from .changes import PathChange, lines_changed, note_for, restore_paths
from .config_paths import keyed, setting_folders
from .network_lines import NO_INSTALL
from .path_rules import (
    FILE_SUFFIX,
    INPUT,
    TEMP,
    fstring_input_path,
    input_path,
    work_path,
    written_here,
)
from .shell_lines import MUTED, CdState, fetched_names, is_shell_cell, point_shell_lines

# a quoted string on one line (a letter before the quote: r, b, u, f are kept)
_LITERAL = re.compile(
    r"""(?<![\w])(?P<prefix>[rRuUbBfF]{0,2})(?P<q>['"])(?P<text>[^'"\n]{1,400})(?P=q)"""
)
# a call that writes a file, its first argument next: df.to_csv(, plt.savefig(, np.save(, ...
_WRITE_CALL = re.compile(r"\b(?:to_\w+|save\w*|dump|imwrite|write\w*|copy\w*|move|rename)\s*\(\s*$")
# a package install run from a cell: !pip, %pip, !conda, %conda, !apt(-get), !python -m pip
_INSTALL = re.compile(
    r"^(?P<indent>[ \t]*)(?P<line>[!%]\s*(?:pip3?|conda|mamba|apt(?:-get)?|python3? -m pip)\s+install\b.*)$",
    re.MULTILINE,
)
# the line that makes Kaggle's scratch folder in the work folder, in Python and in a %%bash cell
_MADE = f"  # MLE-STAR: Kaggle's /kaggle/temp is ./{TEMP} in a run"
TEMP_LINE = f'__import__("os").makedirs("{TEMP}", exist_ok=True){_MADE}'
TEMP_SHELL_LINE = f"mkdir -p {TEMP}{_MADE}"


def point_to_input(
    nb: SolutionNotebook,
    input_dir: Path,
    *,
    network: bool = False,
    context: str = "",
    module_dirs: Sequence[Path] = (),
) -> tuple[SolutionNotebook, tuple[PathChange, ...]]:
    """``nb`` with its data paths rewritten to ``input/...``, its shell lines' paths pointed at
    the run's folders or the lines muted (``shell_lines``) and, without ``network``, its
    package installs muted (see the module docstring); the changes made; the notebook itself
    when there is nothing to change.  ``context``: code that uses ``nb``'s names and is not
    rewritten (a notebook importing ``nb``, the user's module: ``from utils import RAW`` with
    ``os.path.join(RAW, "train.csv")`` says that ``RAW`` is a data folder); ``module_dirs``:
    the folders besides ``input_dir`` the notebook imports its own modules from."""
    changes: list[PathChange] = []
    out = nb
    fetched = frozenset() if network else fetched_names(b.source for b in nb.code_blocks)
    # what the paths are is read from the code with its context; only ``nb`` is rewritten
    seen = _with_context(nb, context)
    folders, loose = _joined_folders(seen, input_dir)
    lists = True  # bare names in lists and dicts are data paths ...
    if loose and _names_in_lists(seen, input_dir):
        folders, lists = folders | loose, False  # ... unless joined to a folder variable later
    # load_data("train.csv") of a notebook's own function that joins its folder to the name,
    # or of a function imported from the user's module in input/ (or in ``module_dirs``) that
    # does (its folder is pointed at input/ in the copy ``local_modules``/``path_modules``
    # makes): the bare names stay bare
    own = _own_functions(seen) if loose else frozenset()
    if own and _names_given_to(own, seen, input_dir):
        folders = folders | loose
    else:
        own = frozenset()
    joiners = _imported_joiners(seen, input_dir, module_dirs)
    if joiners and _names_given_to(joiners, seen, input_dir):
        own = own | joiners
    data_names = _names_of_input(seen, input_dir, folders, lists, own)
    cd = CdState()  # a move into the data folder, from cell to cell
    code = "\n".join(b.source for b in seen.code_blocks)
    tails = _joined_as_tail(code)
    written = _written_beside_data(code, data_names, input_dir)
    for block in nb.code_blocks:
        found: list[PathChange] = []
        source = _rewrite_literals(
            block.source, block.id, input_dir, folders, found, lists, own, tails
        )
        source = _writes_beside_data(source, block.id, data_names, written, found)

        def mute(
            m: re.Match[str], block_id: str = block.id, found: list[PathChange] = found
        ) -> str:
            new = f"{m.group('indent')}pass  # {m.group('line')}{NO_INSTALL}"
            found.append(PathChange(block_id, m.group(0), new, kind="install"))
            return new

        if not network:
            source = _INSTALL.sub(mute, source)
        source, shell = point_shell_lines(
            source, input_dir, network=network, fetched=fetched, cd=cd
        )
        found += [
            PathChange(block.id, old, new, kind="install" if NO_INSTALL in new else "shell")
            for old, new in shell
        ]
        if found:
            out = out.replace_block(block.id, source)  # still the user's cell: refinable
            changes.extend(found)
    out, cwd = _cwd_pointed(out, input_dir)
    changes.extend(cwd)
    made = _make_temp(out, changes)
    if made is not None:
        block = out.block(made.block_id)
        out = out.replace_block(made.block_id, with_head(block.source, made.new))
        changes.append(made)
    return out, tuple(changes)


def _with_context(nb: SolutionNotebook, context: str) -> SolutionNotebook:
    """``nb``'s code and ``context`` as one notebook to read (``nb`` itself without one)."""
    if not context.strip():
        return nb
    return SolutionNotebook.new(
        [*(("other", b.source) for b in nb.code_blocks), ("other", context)]
    )


def module_context(code: str, module: str) -> str:
    """The notebook's ``code`` as the names of its module ``module`` (``utils``,
    ``src.features``) read in it: ``utils.RAW`` as ``RAW`` (``import utils``, ``import utils as
    u``), and a line ``DATA = RAW`` for each ``from utils import RAW as DATA``; ``""`` when the
    code imports nothing from it."""
    name = re.escape(module)
    imported = [
        m.group(1) or module
        for m in re.finditer(rf"^[ \t]*import[ \t]+{name}(?:[ \t]+as[ \t]+(\w+))?\b", code, re.M)
    ]
    renamed: list[str] = []
    for m in re.finditer(rf"^[ \t]*from[ \t]+{name}[ \t]+import[ \t]+\(?([\w, \t*]+)", code, re.M):
        renamed.append("")
        for item in m.group(1).split(","):
            own, _, alias = (w.strip() for w in item.strip().partition(" as "))
            if alias and own:
                renamed.append(f"{alias} = {own}")
    if not imported and not renamed:
        return ""
    for alias in imported:
        code = re.sub(rf"(?<![\w.]){re.escape(alias)}\.(?=[A-Za-z_])", "", code)
    return "\n".join([code, *(r for r in renamed if r)])


def _make_temp(nb: SolutionNotebook, changes: list[PathChange]) -> PathChange | None:
    """The line that makes ``./kaggle_temp`` when a change points there (Kaggle has its
    ``/kaggle/temp``, a run's work folder does not: ``df.to_pickle("/kaggle/temp/x.pkl")``
    needs it made), in the first such cell (or, when that is a cell magic such as
    ``%%writefile``, the first cell of Python or shell); ``None`` when none points there."""
    temp = re.compile(rf"\./{TEMP}\b")
    used = [c.block_id for c in changes if temp.search(c.new) and MUTED not in c.new]
    if not used:
        return None
    order = nb.block_ids
    blocks = [nb.block(b) for b in sorted(set(used), key=order.index)] + list(nb.code_blocks)
    for block in blocks:
        if is_shell_cell(block.source):
            return PathChange(block.id, "", TEMP_SHELL_LINE, kind="temp")
        if not block.source.startswith("%%"):
            return PathChange(block.id, "", TEMP_LINE, kind="temp")
    return None


def _rewrite_literals(
    source: str,
    block_id: str,
    input_dir: Path,
    folders: set[str],
    found: list[PathChange],
    lists: bool = True,
    own: frozenset[str] = frozenset(),
    tails: frozenset[str] = frozenset(),
) -> str:
    """``source`` with its path literals pointed at ``input/`` (appended to ``found``).  One pass
    over the literals; the brackets between them say where each one stands.  A bare name given
    to one of ``own`` (the notebook's functions that join a folder to it) is left as written,
    and so is one assigned to a name in ``tails`` (one the notebook joins to a folder)."""
    pieces: list[str] = []
    opened: list[str] = []  # brackets open at this point of the code (outside the literals)
    last = 0
    pointed = -1  # where a folder literal pointed at input/ ends: DATA = Path("..") / "data"
    for m in _LITERAL.finditer(source):
        between = source[last : m.start()]
        for ch in between:
            if ch in "([{":
                opened.append(ch)
            elif ch in ")]}" and opened:
                opened.pop()
        pieces.append(between)
        last = m.end()
        # Kaggle's working folder is the work folder (in a write too); another file
        # a call writes is an output, even named like an input (df.to_csv("train.csv"))
        new = work_path(m.group("text"))
        callee = re.search(r"(\w+)\s*\($", between.rstrip())
        method = re.search(r"(\w+)\s*\.\s*(?:joinpath|glob|rglob)\s*\($", between.rstrip())
        if callee and callee.group(1) in own and not re.search(r"[\\/]", m.group("text")):
            new = None  # the function joins its folder (pointed at input/) to the bare name
        elif method and method.group(1) != "glob" and not re.search(r"[\\/]", m.group("text")):
            new = None  # DATA.joinpath("test.csv"), DATA.glob("*.csv"): a name in DATA
        elif new is None and _WRITE_CALL.search(between):
            new = written_here(m.group("text"))  # /content/submission.csv: ./submission.csv
        elif new is None and pointed >= 0 and _below_pointed(source, pointed, m, input_dir):
            new = "."  # the folder's last part: input/ is the whole folder (Path("input") / ".")
            pointed = m.end()
        elif new is None:
            new = _literal_for(
                m, between.rstrip()[-1:], opened[-1:], source, input_dir, folders, lists, tails
            )
            if new is not None and m.group("text") in folders:
                pointed = m.end()
        if new is None:
            pieces.append(m.group(0))
            continue
        found.append(PathChange(block_id, m.group("text"), new))
        pieces.append(f"{m.group('prefix')}{m.group('q')}{new}{m.group('q')}")
    pieces.append(source[last:])
    return "".join(pieces)


def _below_pointed(source: str, pointed: int, m: re.Match[str], input_dir: Path) -> bool:
    """Whether the literal ``m`` is a folder name joined right after the folder literal that
    ended at ``pointed`` and was pointed at input/ (``Path("..") / "data"``: the notebook's
    data folder written in two parts; ``os.path.join("data", "raw")``), on the same line,
    naming nothing of input/."""
    between = source[pointed : m.start()].replace(m.group("prefix"), "")
    text = m.group("text")
    joined = re.search(r"""join\(\s*[rRbBuU]?(['"])[^'"\n]*\1$""", source[:pointed]) is not None
    return (
        "\n" not in between
        and (
            re.fullmatch(r"\s*\)?\s*/\s*", between) is not None
            or (joined and re.fullmatch(r"\s*,\s*", between) is not None)
        )
        and re.fullmatch(r"[\w.-]+", text) is not None
        and not FILE_SUFFIX.search(text)
        and not _in_input(text, input_dir)
    )


def _literal_for(
    m: re.Match[str],
    before: str,
    inside: list[str],
    source: str,
    input_dir: Path,
    folders: set[str],
    lists: bool = True,
    tails: frozenset[str] = frozenset(),
) -> str | None:
    """The new text of the literal ``m`` (``before``: the character before it; ``inside``: the
    innermost open bracket, ``[]`` at the top level), or ``None`` to keep it.  A bare name
    assigned to a name (``TRAIN_FILE = "train.csv"``, ``def load(path="train.csv")``) is a
    path unless the notebook joins that name to a folder (``tails``)."""
    text = m.group("text")
    fstring = "f" in m.group("prefix").lower()
    if text in folders and (_assigned(source, m) or keyed(source, m.start())) and not fstring:
        return INPUT + ("/" if text.endswith(("/", "\\")) else "")
    if before in ("+", "/"):
        return None  # the tail of a path joined to something: DIR + "/train.csv"
    named = before == "=" and _assigned_to(source, m) not in (None, *tails)
    if (
        not re.search(r"[\\/]", text)
        and before != "("
        and not named
        and not (lists and inside in (["["], ["{"]))
    ):
        return None  # a bare name joined to a folder (os.path.join(DIR, "x.csv"), DIR + "x")
    return fstring_input_path(text, input_dir) if fstring else input_path(text, input_dir)


def _assigned(source: str, m: re.Match[str]) -> bool:
    """Whether the literal ``m`` is the value of an assignment ``NAME = "..."`` (or
    ``NAME = Path("...")``) on its line."""
    return _assigned_to(source, m) is not None


def _assigned_to(source: str, m: re.Match[str]) -> str | None:
    """The name the literal ``m`` is assigned to (``NAME = "..."``, a keyword's default or
    argument ``path="..."``) on its line, else ``None``."""
    head = source[source.rfind("\n", 0, m.start()) + 1 : m.start()]
    found = _FOLDER_HEAD.search(_ENV_NAME.sub("", head))
    return found.group("name") if found else None


def _joined_as_tail(code: str) -> frozenset[str]:
    """The names the code joins to a folder as a path's tail (see :func:`_joins`)."""
    return frozenset(tail for _, tail in _joins(code))


_NAME = r"[A-Za-z_]\w*"
# (folder, name) joined into a path; the name is read ahead, so that it can be the folder of the
# next join (A / B / C); a folder that is no plain name (a call, a literal) is read as ""
_JOINS = (
    re.compile(rf"join\(\s*(?:({_NAME})|[^()]*?)\s*,\s*({_NAME})\s*[,)]"),
    re.compile(rf"(?:\b({_NAME})\s*\)?\s*)?[/+]\s*(?=({_NAME})\b(?!\s*\())"),
    re.compile(rf"(?:\b({_NAME})\s*\)?\s*\.)?joinpath\(\s*({_NAME})"),
    re.compile(rf"\{{({_NAME})\}}[\\/]\{{({_NAME})\}}"),
)


def _joins(code: str) -> list[tuple[str, str]]:
    """``(folder, name)`` for each name the code joins to a folder as a path's tail:
    ``os.path.join(DIR, NAME)``, ``DIR / NAME``, ``DIR + NAME``, ``DIR.joinpath(NAME)``,
    ``f"{DIR}/{NAME}"``; ``folder`` is ``""`` when it is no plain name."""
    return [(m.group(1) or "", m.group(2)) for p in _JOINS for m in p.finditer(code)]


# NAME = "..." / NAME = Path("...") / NAME: str = "..." at the start of a line, or a keyword's
# default or argument: def load(folder="data"), load(folder="data"); also below a folder of the
# working directory: DATA = ROOT / "data", DATA = Path.cwd() / "data"
_FOLDER_HEAD = re.compile(
    r"(?:^\s*|[(,]\s*)(?P<name>[A-Za-z_]\w*)\s*(?::\s*\w+\s*)?=\s*"
    r"(?:\w+(?:\.\w+)*(?:\(\))?\s*/\s*)?(?:\w+(?:\.\w+)*\(\s*)?$"
)

# an environment variable's name before its default, ``os.getenv("DATA_DIR", `` and
# ``os.environ.get("DATA_DIR", ``: the default is the value (``DATA = os.getenv("X", "data/")``
# assigns "data/"), the name no path
_ENV_NAME = re.compile(
    r"""\b(?:os\.)?(?:getenv|environ\.get)\(\s*[rRbBuU]?(['"])[^'"\n]*\1\s*,\s*$"""
)

_FOLDER_NAME = re.compile(r"dir|path|root|folder|data|base|input|loc", re.IGNORECASE)


def _joined_folders(nb: SolutionNotebook, input_dir: Path) -> tuple[set[str], set[str]]:
    """Folder literals assigned to a name that match nothing in ``input/``: those the notebook
    joins to a name in ``input/`` (``DATA = "data/"`` with ``DATA + "train.csv"``), and those it
    joins to anything (``os.path.join(DATA, files["train"])``)."""
    code = "\n".join(b.source for b in nb.code_blocks)
    found: set[str] = set()
    loose: set[str] = set()
    named = dict(_BARE_NAME.findall(code))  # TRAIN = "train.csv": what TRAIN stands for
    for line in code.splitlines():
        lit = _LITERAL.search(line)
        if lit and _ENV_NAME.search(line[: lit.end()] + ","):  # os.getenv("DATA", "data/")
            lit = _LITERAL.search(line, lit.end())  # the folder is the default, not the name
        head = _FOLDER_HEAD.search(_ENV_NAME.sub("", line[: lit.start()])) if lit else None
        if head is None or lit is None or "f" in lit.group("prefix").lower():
            continue
        text = lit.group("text")
        if not _folder_literal(text, input_dir):
            continue  # not a folder, or one the literal rules handle
        names = (head.group("name"), *_aliases(code, head.group("name")))
        joined = [j for n in names for j in _joined_to(code, n)]
        joined += [named[w] for n in names for w in _joined_names(code, n) if w in named]
        if any(_in_input(name, input_dir) for name in joined if name):
            found.add(text)
        elif joined and (re.search(r"[\\/]", text) or _FOLDER_NAME.search(head.group("name"))):
            loose.add(text)
    maybe = lambda text: text not in found and _folder_literal(text, input_dir)  # noqa: E731
    for setting in setting_folders(code, maybe):  # args.data_dir, CFG["data_dir"], cfg.data_dir
        joined = [j for read in setting.reads for j in _joined_to_read(code, read)]
        if any(_in_input(name, input_dir) for name in joined if name):
            found.add(setting.text)
        elif joined and (re.search(r"[\\/]", setting.text) or _FOLDER_NAME.search(setting.key)):
            loose.add(setting.text)
    return found, loose


def _folder_literal(text: str, input_dir: Path) -> bool:
    """Whether ``text`` may name a data folder the literal rules leave as written: no URL, no
    file, not ``input`` and no path those rules point at ``input/`` themselves."""
    if "://" in text or FILE_SUFFIX.search(text) or input_path(text, input_dir) or work_path(text):
        return False
    return re.sub(r"^(\./)+", "", text.replace("\\", "/")).rstrip("/") != INPUT


def _names_in_lists(nb: SolutionNotebook, input_dir: Path) -> bool:
    """Whether a list or dict literal of the notebook holds a bare name of ``input/``."""
    for block in nb.code_blocks:
        with_lists: list[PathChange] = []
        without: list[PathChange] = []
        _rewrite_literals(block.source, block.id, input_dir, set(), with_lists, True)
        _rewrite_literals(block.source, block.id, input_dir, set(), without, False)
        if len(with_lists) != len(without):
            return True
    return False


def _own_functions(nb: SolutionNotebook) -> frozenset[str]:
    """The names of the functions the notebook defines (``def load_data(name): ...``)."""
    code = "\n".join(b.source for b in nb.code_blocks)
    return frozenset(re.findall(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(", code, re.M))


def _imported_joiners(
    nb: SolutionNotebook, input_dir: Path, module_dirs: Sequence[Path] = ()
) -> frozenset[str]:
    """The names the notebook imports from its own modules in ``input/`` or ``module_dirs``
    (``from utils import read_table``) when such a module joins a folder variable to something
    not written out (``DATA + name``, ``f"{DATA}/{name}"``, ``os.path.join(DATA, name)``)."""
    code = "\n".join(b.source for b in nb.code_blocks)
    out: set[str] = set()
    for m in re.finditer(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+\(?([\w, \t]+)", code, re.M):
        rel = m.group(1).replace(".", "/") + ".py"
        found = [d / rel for d in (input_dir, *module_dirs) if (d / rel).is_file()]
        try:
            src = found[0].read_text(encoding="utf-8", errors="replace") if found else ""
        except OSError:
            continue
        heads = re.findall(r"""^[ \t]*(\w+)[ \t]*=[ \t]*(?:\w+\()?[rR]?['"]""", src, re.M)
        if any("" in _joined_to(src, head) for head in heads):
            out |= {n.split(" as ")[-1].strip() for n in m.group(2).split(",") if n.strip()}
    return frozenset(out)


def _names_given_to(own: frozenset[str], nb: SolutionNotebook, input_dir: Path) -> bool:
    """Whether a call of one of ``own`` is given a bare name of ``input/`` as its first
    argument (``load_data("train.csv")``)."""
    code = "\n".join(b.source for b in nb.code_blocks)
    calls = re.finditer(r"""\b(\w+)\s*\(\s*[rR]?(['"])([^'"\\/\n]+)\2""", code)
    return any(m.group(1) in own and _in_input(m.group(3), input_dir) for m in calls)


def _aliases(code: str, var: str) -> list[str]:
    """The names that take the variable ``var``'s value as it is: a parameter's default
    (``def load(data_dir=DATA_DIR)``), a keyword argument, ``d = DATA_DIR``."""
    v = re.escape(var)
    return [
        n
        for n in re.findall(rf"\b([A-Za-z_]\w*)\s*=\s*{v}\b(?=[ \t]*(?:[,):;#\n]|$))", code)
        if n != var
    ]


# ROOT = Path.cwd() / os.getcwd() / Path() / Path("."): the folder the notebook runs in, on a
# line of its own (the run's work folder, whose data is in input/)
_CWD = re.compile(
    r"""^(?P<head>[ \t]*(?P<name>[A-Za-z_]\w*)[ \t]*=[ \t]*)"""
    r"""(?P<cwd>(?:pathlib\.)?Path\.cwd\(\)|os\.getcwd\(\)|(?:pathlib\.)?Path\([ \t]*(?:['"]\.?/?['"])?[ \t]*\))"""
    r"""(?P<tail>[ \t]*(?:#.*)?)$""",
    re.MULTILINE,
)


def _cwd_pointed(
    nb: SolutionNotebook, input_dir: Path
) -> tuple[SolutionNotebook, tuple[PathChange, ...]]:
    """``nb`` with a name for the folder it runs in (``ROOT = Path.cwd()``) made ``input/``
    below it, when the notebook joins that name to a file of ``input/``
    (``os.path.join(ROOT, "train.csv")``, ``ROOT / "test.csv"``)."""
    code = "\n".join(b.source for b in nb.code_blocks)

    def point(m: re.Match[str], _before: int) -> str | None:
        names = (m.group("name"), *_aliases(code, m.group("name")))
        joined = [j for n in names for j in _joined_to(code, n)]
        if not any(_in_input(j, input_dir) for j in joined if j):
            return None
        cwd = m.group("cwd")
        below = f'os.path.join({cwd}, "{INPUT}")' if cwd.startswith("os.") else f'{cwd} / "{INPUT}"'
        return f"{m.group('head')}{below}{m.group('tail')}"

    return lines_changed(nb, _CWD, "cwd", point)


def _joined_to(code: str, var: str) -> list[str]:
    """The names the code joins to the variable ``var``: ``var + "x"``, ``var / "x"``,
    ``os.path.join(var, "x")``, ``Path(var) / "x"``, ``f"{var}/x"`` (an f-string that starts
    with it: in ``f"/kaggle/input/{COMP}/x"`` it names a folder inside another); ``""`` for
    each join to something other than a literal (``var + name``, ``f"{var}/{name}"``)."""
    return _joined_to_read(code, rf"\b{re.escape(var)}")


def _joined_to_read(code: str, read: str) -> list[str]:
    """As :func:`_joined_to`, for the expressions the pattern ``read`` matches (a variable, or
    a setting read back: ``args.data_dir``, ``CFG["data_dir"]``)."""
    v = read
    # a literal's first name, or "" for any other expression (a variable, a subscript)
    name = r"""(?:[rRbBuU]?['"][\\/]?(?P<x>[^'"\\/{}\n]+)|[\w{])"""
    patterns = (
        rf"{v}\s*\)?\s*[+/]\s*{name}",
        rf"join\(\s*{v}\s*,\s*{name}",
        rf"""(?<=['"])\{{{v}\}}[\\/]?(?:(?P<x>[^'"\\/{{}}\n]+)|\{{)""",
    )
    return [m.group("x") or "" for p in patterns for m in re.finditer(p, code)]


# NAME = "train.csv" on a line of its own: a bare file name a variable stands for
_BARE_NAME = re.compile(
    r"""^[ \t]*([A-Za-z_]\w*)[ \t]*=[ \t]*[rR]?['"]([^'"\\/\n]+\.\w+)['"][ \t]*(?:#.*)?$""",
    re.MULTILINE,
)


def _joined_names(code: str, var: str) -> list[str]:
    """The variables the code joins to the variable ``var`` (see :func:`_joins`)."""
    return [tail for folder, tail in _joins(code) if folder == var]


# NAME = "input" / NAME = os.path.expanduser("input") / NAME: Path = Path("./input/") on a line
_INPUT_NAME = re.compile(
    r"""^[ \t]*(?P<name>[A-Za-z_]\w*)[ \t]*(?::[ \t]*[\w.]+[ \t]*)?=[ \t]*"""
    r"""(?:[\w.]+\([ \t]*)*[rR]?(?P<q>['"])(?:\./)?input/?(?P=q)[ \t]*\)*[ \t]*(?:#.*)?$""",
    re.MULTILINE,
)


def _names_of_input(
    nb: SolutionNotebook,
    input_dir: Path,
    folders: set[str],
    lists: bool,
    own: frozenset[str],
) -> frozenset[str]:
    """The names the notebook gives the data folder once its paths point at ``input/``
    (``DATA = os.path.expanduser("~/datasets/wine")`` becomes ``DATA = ...("input")``)."""
    code = "\n".join(
        _rewrite_literals(b.source, b.id, input_dir, folders, [], lists, own)
        for b in nb.code_blocks
    )
    return frozenset(m.group("name") for m in _INPUT_NAME.finditer(code))


# a call that writes a file, its first argument next (as ``_WRITE_CALL``, open() aside)
_WRITER = r"\b(?:to_\w+|save\w*|dump|imwrite|write\w*)\s*\(\s*"


def _file(tag: str) -> str:
    """A quoted file name of one part (``"submission.csv"``, ``"/sub.csv"``), its name the
    group ``file<tag>``."""
    return (
        rf"""(?P<q{tag}>['"])[\\/]?(?P<file{tag}>[^'"\\/{{}}\n]+\.[A-Za-z0-9]{{1,8}})(?P=q{tag})"""
    )


def _joins_to(names: frozenset[str]) -> str:
    """A path made of one of ``names`` and a quoted file name: ``os.path.join(DATA, "x.csv")``,
    ``DATA + "/x.csv"``, ``str(DATA) + "/x.csv"``, ``Path(DATA) / "x.csv"``, ``DATA / "x.csv"``,
    ``f"{DATA}/x.csv"``."""
    n = "(?<![\\w.])(?:" + "|".join(re.escape(x) for x in sorted(names)) + ")(?!\\w)"
    return (
        rf"(?:(?:os\.)?(?:path\.)?join\(\s*{n}\s*,\s*{_file('1')}\s*\)"
        rf"|(?:(?:(?:pathlib\.)?Path|str)\(\s*{n}\s*\)|{n})\s*[+/]\s*{_file('2')}"
        rf"""|[fF](?P<q3>['"])\{{{n}\}}[\\/](?P<file3>[^'"\\/{{}}\n]+\.[A-Za-z0-9]{{1,8}})(?P=q3))"""
    )


def _written_beside_data(code: str, names: frozenset[str], input_dir: Path) -> frozenset[str]:
    """The file names ``code`` writes into the data folder (named by one of ``names``) that the
    task's data does not hold: ``sub.to_csv(os.path.join(DATA, "submission.csv"))``, or
    ``OUT = DATA / "sub.csv"`` with ``sub.to_csv(OUT)``."""
    if not names:
        return frozenset()
    path = _joins_to(names)
    found = {_named(m) for m in re.finditer(_WRITER + "(?:" + path + ")", code)}
    assigned = re.compile(r"^[ \t]*(?P<var>[A-Za-z_]\w*)[ \t]*=[ \t]*(?P<path>" + path + ")", re.M)
    for m in assigned.finditer(code):
        if re.search(_WRITER + re.escape(m.group("var")) + r"\s*[,)]", code):
            found.add(_named(m))
    return frozenset(f for f in found if not (input_dir / f).exists())


def _writes_beside_data(
    source: str,
    block_id: str,
    names: frozenset[str],
    written: frozenset[str],
    found: list[PathChange],
) -> str:
    """``source`` with the files the notebook writes into its data folder (``written``, in the
    folder one of ``names`` stands for) written and read in the work folder instead (appended
    to ``found``, each a changed line, kind ``output``): a run's ``./input`` is read-only, and
    the folder an author kept the data in was theirs to write
    (``sub.to_csv(os.path.join(DATA, "submission.csv"))`` → ``sub.to_csv("./submission.csv")``,
    ``pd.read_csv(DATA / "clean.csv")`` of a file the notebook wrote → ``"./clean.csv"``)."""
    if not written:
        return source
    joined = re.compile(_joins_to(names))

    def here(m: re.Match[str]) -> str:
        return f'"./{_named(m)}"' if _named(m) in written else m.group(0)

    out: list[str] = []
    for line in source.split("\n"):
        new = joined.sub(here, line)
        if new != line:
            found.append(PathChange(block_id, line, new, kind="output"))
        out.append(new)
    return "\n".join(out)


def _named(m: re.Match[str]) -> str:
    """The file name a ``_joins_to`` match joins to its folder."""
    return m.group("file1") or m.group("file2") or m.group("file3")


def _in_input(name: str, input_dir: Path) -> bool:
    """Whether ``name`` names an entry of ``input/``, or is a pattern (``train*.csv``) that
    matches one."""
    name = name.strip()
    if not name or name in (".", ".."):
        return False
    if re.search(r"[*?\[]", name):
        if Path(name).is_absolute() or ".." in re.split(r"[\\/]", name):
            return False
        try:
            return any(input_dir.glob(name))
        except (ValueError, NotImplementedError):  # a pattern glob cannot read
            return False
    return (input_dir / name).exists()


# what ``call_folders`` reads a function's parameters by
folder_literal = _folder_literal
in_input = _in_input
joined_to = _joined_to

__all__ = [
    "NO_INSTALL",
    "PathChange",
    "folder_literal",
    "in_input",
    "joined_to",
    "module_context",
    "note_for",
    "point_to_input",
    "restore_paths",
]
