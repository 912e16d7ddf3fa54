"""Data folders a notebook keeps as a setting: an argparse default, a config dict's entry, a
config object's field.

A script turned notebook names its data folder where it keeps its other settings, and reads it
back through that setting rather than a variable:

- ``parser.add_argument("--data-dir", default="data")`` with ``args = parser.parse_args([])``
  (or ``parse_known_args()``), read as ``args.data_dir`` (argparse's ``dest``: the first long
  option, dashes as underscores, or ``dest=``);
- ``CFG = dict(data_dir="data/")`` or ``SimpleNamespace(data_dir=...)``, read as
  ``CFG["data_dir"]`` or ``cfg.data_dir``;
- ``config = {"data_path": "./data"}``, read as ``config["data_path"]``;
- a dataclass or class field ``data_dir: str = "data"``, read as ``cfg.data_dir``.

:func:`setting_folders` gives each such literal with the expressions that read it back, and the
names bound to one of them (``DATA = Path(cfg.data_dir)``, ``root = args.data``), so that
``data_paths`` points the literal at ``input`` when the notebook joins one of them to a file of
the task's data (``os.path.join(args.data_dir, "train.csv")``, ``f"{CFG['data_dir']}/x.csv"``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

# a quoted string on one line, its text the group ``text`` (as ``data_paths._LITERAL``)
_LIT = r"""[rRuU]?(?P<q>['"])(?P<text>[^'"\n]{1,400})(?P=q)"""
# key=<literal> as a call's keyword argument (dict(...), SimpleNamespace(...), Config(...))
_KEYWORD = re.compile(rf"(?:[(,]|^)[ \t]*(?P<key>[A-Za-z_]\w*)[ \t]*=[ \t]*{_LIT}", re.M)
# "key": <literal> in a dict literal
_DICT_ENTRY = re.compile(rf"""(?P<kq>['"])(?P<key>[A-Za-z_]\w*)(?P=kq)[ \t]*:[ \t]*{_LIT}""")
# an indented field of a class body: ``    data_dir: str = "data"`` / ``    data_dir = "data"``
_FIELD = re.compile(
    rf"^[ \t]+(?P<key>[A-Za-z_]\w*)[ \t]*(?::[ \t]*[\w.\[\], ]+)?=[ \t]*{_LIT}[ \t]*(?:#.*)?$",
    re.M,
)
_ADD_ARGUMENT = re.compile(r"\badd_argument\s*\(")
_OPTION = re.compile(r"""^\s*[rRuU]?(['"])(-{1,2}[A-Za-z0-9][\w-]*)\1\s*,?""")
_DEFAULT = re.compile(rf"\bdefault\s*=\s*{_LIT}")
_DEST = re.compile(r"""\bdest\s*=\s*[rRuU]?(['"])([A-Za-z_]\w*)\1""")


@dataclass(frozen=True)
class SettingFolder:
    """A literal kept as the setting ``key`` (``text``: the literal's text) and ``reads``: the
    patterns of the expressions that give it back (``args.data_dir``, ``CFG["data_dir"]``, a name
    bound to one of those)."""

    text: str
    key: str
    reads: tuple[str, ...]


def setting_folders(
    code: str, keep: Callable[[str], bool] = lambda _text: True
) -> list[SettingFolder]:
    """Each literal ``code`` keeps as a named setting (see the module docstring) that ``keep``
    takes and the code reads back, with the patterns of the expressions that read it; a literal
    of several settings comes once per key."""
    seen: set[tuple[str, str]] = set()
    out: list[SettingFolder] = []
    read = set(_READ_KEYS.findall(code))  # .key, ["key"], .get("key") somewhere in the code
    for text, key in _settings(code):
        if (text, key) in seen or key not in read or not keep(text):
            continue
        seen.add((text, key))
        access = _access(key)
        out.append(SettingFolder(text, key, (access, *_bound_names(code, access))))
    return out


# a key read back: an attribute (args.data_dir), a subscript (CFG["data_dir"]), a .get("data_dir")
_READ_KEYS = re.compile(r"""(?:\.|\[\s*['"]|\.get\(\s*['"])([A-Za-z_]\w*)""")


def keyed(source: str, start: int) -> bool:
    """Whether the literal starting at ``start`` in ``source`` is a dict literal's value under a
    quoted key (``"data_path": "./data"``)."""
    head = source[source.rfind("\n", 0, start) + 1 : start]
    return re.search(r"""['"][A-Za-z_]\w*['"][ \t]*:[ \t]*[rRuU]?$""", head) is not None


def _settings(code: str) -> Iterator[tuple[str, str]]:
    """``(literal text, key)`` for argparse defaults, keyword arguments, dict entries and class
    fields of ``code``."""
    yield from _argparse_defaults(code)
    for pattern in (_KEYWORD, _DICT_ENTRY, _FIELD):
        for m in pattern.finditer(code):
            yield m.group("text"), m.group("key")


def _argparse_defaults(code: str) -> Iterator[tuple[str, str]]:
    """``(default, dest)`` of each ``add_argument(...)`` call with a string default."""
    for m in _ADD_ARGUMENT.finditer(code):
        args = _call_arguments(code, m.end())
        default = _DEFAULT.search(args)
        if default is None:
            continue
        dest = _DEST.search(args)
        if dest is not None:
            yield default.group("text"), dest.group(2)
            continue
        options: list[str] = []
        rest = args
        while (o := _OPTION.match(rest)) is not None:
            options.append(o.group(2))
            rest = rest[o.end() :]
        longs = [o for o in options if o.startswith("--")]
        if options:
            name = (longs or options)[0].lstrip("-").replace("-", "_")
            yield default.group("text"), name


def _call_arguments(code: str, start: int) -> str:
    """The text of a call's arguments from ``start`` (just after its ``(``) to its closing
    bracket, quotes skipped; to the end of ``code`` when it never closes."""
    depth, quote, i = 1, "", start
    while i < len(code):
        ch = code[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return code[start:i]
        i += 1
    return code[start:]


def _access(key: str) -> str:
    """The pattern of an expression that reads the setting ``key``: ``args.key``,
    ``self.cfg.key``, ``CFG["key"]``, ``vars(args)["key"]``, ``cfg.get("key")``."""
    k = re.escape(key)
    owner = r"\b[A-Za-z_][\w.]*(?:\(\s*\w*\s*\))?"
    return rf"""(?:{owner}(?:\.{k}\b|\[\s*['"]{k}['"]\s*\]|\.get\(\s*['"]{k}['"]\s*\)))"""


def _bound_names(code: str, access: str) -> list[str]:
    """Patterns of the names bound to what ``access`` reads, as it is or through a call that
    keeps the folder (``DATA = Path(cfg.data_dir)``, ``root = os.path.abspath(args.data)``),
    and of the names bound to those in turn."""
    found: list[str] = []
    todo = [access]
    while todo and len(found) < 8:
        read = todo.pop()
        bind = re.compile(
            rf"^[ \t]*(?P<name>[A-Za-z_]\w*)[ \t]*(?::[^=\n]+)?=[ \t]*"
            rf"(?:[\w.]+\([ \t]*)*{read}[ \t]*\)*[ \t]*(?:#.*)?$",
            re.M,
        )
        for m in bind.finditer(code):
            name = rf"\b{re.escape(m.group('name'))}\b"
            if name not in found:
                found.append(name)
                todo.append(name)
    return found


__all__ = ["SettingFolder", "keyed", "setting_folders"]
