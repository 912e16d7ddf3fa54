"""Shell commands that need the network: package installs and downloads, which a run cannot do.

A run's kernels have no network.  A notebook written on Kaggle or Colab fetches what it needs
from a cell: ``!kaggle competitions download -c titanic``, ``!wget https://.../data.zip``,
``!curl -O ...``, ``!gdown --id ...``, ``!git clone https://...``, ``pip install`` in a
``%%bash`` cell.  In a run each of them fails (a ``!`` line prints an error and the notebook
goes on without the file; a ``%%bash`` cell whose last command fails stops the notebook), and a
command that then unpacks or moves the file a download would have made fails the same way
(``!unzip titanic.zip``).  ``shell_lines`` mutes such lines with the reason; this module says
which commands they are.  Each function reads one command's words, unquoted, the command's
name first (``["wget", "-q", "https://x.org/a.zip"]``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

NO_INSTALL = "  # MLE-STAR: not run (a run has no network; install it where Jupyter runs)"
NO_DOWNLOAD = "  # MLE-STAR: not run (a run has no network; the task's data is already in ./input)"
NO_FETCHED = (
    "  # MLE-STAR: not run (it uses what a download above would fetch; a run has no network)"
)

_INSTALLERS = frozenset({"pip", "pip3", "conda", "mamba", "micromamba", "apt", "apt-get", "yum"})
_URL = re.compile(r"^(?:https?|ftp|s3|gs)://|^git@")
# a Kaggle CLI download: kaggle competitions|datasets|kernels|models download|output
_KAGGLE_GROUPS = frozenset({"competitions", "c", "datasets", "d", "kernels", "k", "models", "m"})
# the option naming the file a download writes, per command
_OUTPUT_FLAGS = {
    "wget": ("-O", "--output-document"),
    "curl": ("-o", "--output"),
    "gdown": ("-O", "--output"),
    "aria2c": ("-o", "--out"),
}
_KAGGLE_VALUES = ("-p", "--path", "-f", "--file", "-c", "-d")  # Kaggle CLI options with a value


def is_install(words: Sequence[str]) -> bool:
    """Whether the command installs packages: ``pip install``, ``conda install``, ``apt-get
    install``, ``python -m pip install``, ``uv pip install``."""
    name = _name(words)
    rest = [w for w in words[1:] if not w.startswith("-")]
    if name in _INSTALLERS:
        return rest[:1] == ["install"]
    if re.fullmatch(r"python[\d.]*", name) or name == "uv":
        return rest[:2] == ["pip", "install"]  # python -m pip install, uv pip install
    return False


def is_download(words: Sequence[str]) -> bool:
    """Whether the command fetches from the network: ``kaggle competitions download``,
    ``wget``/``curl``/``aria2c`` of a URL, ``gdown``, ``git clone`` of a URL."""
    name = _name(words)
    rest = [w for w in words[1:] if not w.startswith("-")]
    if name == "kaggle":
        return len(rest) > 1 and rest[0] in _KAGGLE_GROUPS and rest[1] in ("download", "output")
    if name == "gdown":
        return True
    url = any(_URL.match(w) for w in words[1:])
    return url and (name in ("wget", "curl", "aria2c") or (name == "git" and rest[:1] == ["clone"]))


def fetched_by(words: Sequence[str]) -> set[str]:
    """The names of what a download command would make (its output option's value, the URL's
    last part, ``<competition>.zip`` for Kaggle's CLI, the folder of a ``git clone``); a
    command that is no download makes none."""
    if not is_download(words):
        return set()
    name = _name(words)
    out = _option_values(words, _OUTPUT_FLAGS.get(name, ()))
    urls = [i for i, w in enumerate(words) if i and _URL.match(w)]
    if name == "kaggle":
        out |= _option_values(words, ("-f", "--file"))
        named = _option_values(words, ("-c", "-d")) or set(_operands(words[3:], _KAGGLE_VALUES)[:1])
        out |= {f"{_last_part(n)}.zip" for n in named}
    elif name == "git" and urls:  # git clone URL [folder]
        after = _operands(words[urls[0] + 1 :], ())
        out.add(after[0] if after else _last_part(words[urls[0]]).removesuffix(".git"))
    elif not out and (name != "curl" or "-O" in words or "--remote-name" in words):
        out |= {_last_part(words[i]) for i in urls}
    return {_last_part(n) for n in out if n and n != "-"}


def names_fetched(operands: Sequence[str], fetched: frozenset[str]) -> bool:
    """Whether a command's ``operands`` (what it reads, its name left out) name a file or folder
    in ``fetched``, the names the notebook's downloads would make: ``titanic.zip`` of ``unzip
    titanic.zip`` after ``kaggle competitions download -c titanic``, ``repo/train.py`` after
    ``git clone https://.../repo``."""
    paths = [w.split("=", 1)[-1] for w in operands if not _URL.match(w)]
    # the file itself, or a file in the folder it makes (git clone ...repo → repo/train.py)
    return any(p and (_last_part(p) in fetched or p.split("/", 1)[0] in fetched) for p in paths)


def _name(words: Sequence[str]) -> str:
    """The command's name, its folder left out (``/usr/bin/pip`` → ``pip``)."""
    return words[0].rsplit("/", 1)[-1] if words else ""


def _operands(words: Sequence[str], valued: Sequence[str]) -> list[str]:
    """The words that are no option nor the value of one of the options ``valued``."""
    return [
        w
        for i, w in enumerate(words)
        if not w.startswith("-") and not (i and words[i - 1] in valued)
    ]


def _option_values(words: Sequence[str], flags: Sequence[str]) -> set[str]:
    """The values of ``flags`` in ``words`` (``-O name``, ``--output=name``, ``-Oname``)."""
    out = set()
    for i, w in enumerate(words):
        for flag in flags:
            if w == flag and i + 1 < len(words):
                out.add(words[i + 1])
            elif flag.startswith("--") and w.startswith(flag + "="):
                out.add(w[len(flag) + 1 :])
            elif len(flag) == 2 and w.startswith(flag) and len(w) > 2:
                out.add(w[2:])
    return out


def _last_part(path: str) -> str:
    """The last part of a path or URL, its query left out (``https://x/a.zip?dl=1`` →
    ``a.zip``)."""
    return path.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]


__all__ = [
    "NO_DOWNLOAD",
    "NO_FETCHED",
    "NO_INSTALL",
    "fetched_by",
    "is_download",
    "is_install",
    "names_fetched",
]
