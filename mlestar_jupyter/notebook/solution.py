"""``SolutionNotebook``: an nbformat notebook whose code cells are MLE-STAR code blocks.

Every code cell carries ``metadata.mlestar``: ``block_id`` (stable, ``b1``, ``b2``, …), ``role``
(load, preprocess, features, model, train, evaluate, predict, subsample, …), ``origin`` (which
role or person wrote it) and ``scores`` (the validation scores seen while it was current).
Markdown cells hold plans and explanations.  Edits return a new notebook; the original is untouched.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
from nbformat import NotebookNode

from .errors import (
    BlockMatchError,
    NoCodeCellsError,
    NotebookFormatError,
    NotPythonError,
    UnknownBlockError,
)

META = "mlestar"
# an nbformat 4.5 cell id (nbformat's schema: letters, digits, '-' and '_', 1 to 64 of them)
_CELL_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
BLOCK_ROLES = (
    "setup",
    "load",
    "subsample",
    "preprocess",
    "features",
    "model",
    "train",
    "evaluate",
    "predict",
    "submission",
    "ensemble",
    "other",
)


@dataclass(frozen=True)
class CodeBlock:
    """A read-only view of one code cell."""

    id: str
    index: int
    source: str
    role: str = "other"
    origin: str = ""

    @property
    def title(self) -> str:
        """The id and role as one label: ``b3 (model)``."""
        return f"{self.id} ({self.role})"


class SolutionNotebook:
    """A solution: ordered cells, each code cell a block with a stable id."""

    def __init__(self, nb: NotebookNode) -> None:
        self.nb = nb
        self._assign_ids()

    # -- construction -----------------------------------------------------------------------
    @classmethod
    def new(
        cls,
        blocks: Iterable[tuple[str, str] | tuple[str, str, str]],
        *,
        title: str = "",
        origin: str = "",
    ) -> SolutionNotebook:
        """Build from ``(role, source)`` pairs, or ``("markdown", text)`` for a markdown cell."""
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3",
            "language": "python",
        }
        if title:
            nb.cells.append(nbformat.v4.new_markdown_cell(title))
        for item in blocks:
            role, source = item[0], item[1]
            if role == "markdown":
                nb.cells.append(nbformat.v4.new_markdown_cell(source))
            else:
                nb.cells.append(
                    nbformat.v4.new_code_cell(
                        source.strip("\n"), metadata={META: {"role": role, "origin": origin}}
                    )
                )
        return cls(nb)

    @classmethod
    def read(cls, path: str | Path) -> SolutionNotebook:
        """Read an ``.ipynb`` file (or a percent-format ``.py`` script)."""
        p = Path(path)
        if p.suffix == ".py":
            return cls.from_script(p.read_text(encoding="utf-8"))
        # read and converted as nbformat.read does, without its validation: a notebook saved
        # elsewhere may not validate (Colab's cell ids in nbformat 4.0), the ids are mended on
        # construction, and nbformat would log a page-long report of the file as saved
        text = p.read_text(encoding="utf-8-sig")  # a byte-order mark (Windows editors) too
        try:
            data = json.loads(text)
        except ValueError as e:
            raise NotebookFormatError(
                f"{p}: not a readable notebook: the file is not JSON ({str(e)[:120]}); open it in Jupyter "
                "and save it again, or save it as a .py script"
            ) from None
        try:
            return cls(nbformat.convert(_notebook_node(_mend_keys(data)), 4))
        except (nbformat.ValidationError, nbformat.NBFormatError, AttributeError, TypeError) as e:
            raise NotebookFormatError(
                f"{p}: not a notebook nbformat can read ({str(e).splitlines()[0][:200]}); "
                "open it in Jupyter and save it again, or save it as a .py script"
            ) from None

    @classmethod
    def from_script(cls, text: str, *, base: SolutionNotebook | None = None) -> SolutionNotebook:
        """Parse a jupytext percent script.  With ``base``, blocks named by id keep their metadata."""
        import jupytext

        if "# %%" not in text:
            text = "# %%\n" + text
        nb = jupytext.reads(text, fmt="py:percent")
        known = (
            {b.id: base.cell(b.id).metadata.get(META, {}) for b in base.code_blocks} if base else {}
        )
        for cell in nb.cells:
            title = str(cell.metadata.pop("title", "") or "")
            cell.metadata.pop("lines_to_next_cell", None)
            if cell.cell_type != "code":
                continue
            meta = dict(cell.metadata.get(META, {}))
            m = re.match(r"\s*\[?(b\d+)\]?\s*(?:\(([\w-]+)\))?", title)
            r = re.match(r"\s*\(?([a-z_]+)\)?\s*$", title)
            if m:
                meta = {**known.get(m.group(1), {}), **meta, "block_id": m.group(1)}
                if m.group(2):
                    meta["role"] = m.group(2)
                if base is not None and m.group(1) in known:
                    cell.id = base.cell(m.group(1)).get("id", cell.get("id"))
            elif r and r.group(1) in BLOCK_ROLES:
                meta["role"] = r.group(1)
            cell.metadata[META] = meta
        nb.metadata.pop("jupytext", None)
        nb.metadata.setdefault(
            "kernelspec", {"name": "python3", "display_name": "Python 3", "language": "python"}
        )
        return cls(nb)

    def copy(self) -> SolutionNotebook:
        """An independent deep copy (edits return new notebooks built from one)."""
        return SolutionNotebook(copy.deepcopy(self.nb))

    # -- derived views ----------------------------------------------------------------------
    @property
    def code_blocks(self) -> list[CodeBlock]:
        """The code cells in notebook order, as read-only ``CodeBlock`` views."""
        out = []
        for i, c in enumerate(self.nb.cells):
            if c.cell_type == "code":
                m = c.metadata.get(META, {})
                out.append(
                    CodeBlock(
                        m["block_id"], i, c.source, m.get("role", "other"), m.get("origin", "")
                    )
                )
        return out

    @property
    def block_ids(self) -> list[str]:
        """The ids of the code blocks, in notebook order."""
        return [b.id for b in self.code_blocks]

    def block(self, block_id: str) -> CodeBlock:
        """The code block ``block_id``; raises ``UnknownBlockError`` naming the ids there are."""
        for b in self.code_blocks:
            if b.id == block_id:
                return b
        raise UnknownBlockError(
            f"no code block {block_id!r}; this notebook has: {', '.join(self.block_ids) or 'no code cells'}"
        )

    def cell(self, block_id: str) -> NotebookNode:
        """The nbformat cell of block ``block_id`` itself (edits to it change this notebook)."""
        return self.nb.cells[self.block(block_id).index]

    def blocks_by_role(self, role: str) -> list[CodeBlock]:
        """The code blocks tagged with ``role`` (``"model"``, ``"train"``, …), in order."""
        return [b for b in self.code_blocks if b.role == role]

    def require_code(self) -> SolutionNotebook:
        """Raise ``NoCodeCellsError`` when there is nothing to run, ``NotPythonError`` when the
        notebook says its kernel is another language's; else return self."""
        language = self.language
        if language not in ("", "python"):
            spec = self.nb.metadata.get("kernelspec") or {}
            kernel = str(spec.get("display_name") or "").strip() or language
            raise NotPythonError(
                f"the notebook is written for the {kernel} kernel; MLE-STAR runs and refines "
                "Python notebooks: run it on a Python notebook or a task folder instead (in "
                "Jupyter: open that notebook and press the MLE-STAR button; on the command "
                "line: `mlestar run TASK_DIR --notebook NOTEBOOK.ipynb`)"
            )
        if not self.code_blocks:
            raise NoCodeCellsError(
                "the notebook has no code cells: add at least one code cell that loads ./input and prints 'Final Validation Performance: <score>'"
            )
        return self

    @property
    def language(self) -> str:
        """The kernel language the notebook names (``kernelspec.language``, else
        ``language_info.name``), lower-case; ``""`` when it names none."""
        meta = self.nb.metadata
        spec = meta.get("kernelspec") or {}
        info = meta.get("language_info") or {}
        return str(spec.get("language") or info.get("name") or "").strip().lower()

    @property
    def source(self) -> str:
        """All code cells joined as one Python program."""
        return "\n\n".join(b.source for b in self.code_blocks)

    @property
    def digest(self) -> str:
        """A content hash of the code (what decides an execution's result)."""
        return hashlib.sha256("\x00".join(b.source for b in self.code_blocks).encode()).hexdigest()[
            :16
        ]

    def to_script(self, *, markdown: bool = False) -> str:
        """The notebook as a percent script with compact ``# %% b3 (model)`` headers, for prompts."""
        parts = []
        for c in self.nb.cells:
            if c.cell_type == "code":
                m = c.metadata[META]
                parts.append(
                    f"# %% {m['block_id']} ({m.get('role', 'other')})\n{c.source.rstrip()}\n"
                )
            elif markdown and c.cell_type == "markdown":
                body = "\n".join("# " + ln if ln else "#" for ln in c.source.splitlines())
                parts.append(f"# %% [markdown]\n{body}\n")
        return "\n".join(parts)

    def to_jupytext(self) -> str:
        """Full-fidelity percent script (all metadata), round-trips through ``from_script``."""
        import jupytext

        return jupytext.writes(self.nb, fmt="py:percent")

    # -- edits (each returns a new notebook) -------------------------------------------------
    def replace_block(
        self, block_id: str, source: str, *, origin: str | None = None
    ) -> SolutionNotebook:
        """A copy with block ``block_id``'s source replaced and its outputs cleared."""
        new = self.copy()
        cell = new.cell(block_id)
        cell.source = source.strip("\n")
        cell.outputs = []
        cell.execution_count = None
        if origin is not None:
            cell.metadata[META]["origin"] = origin
        return new

    def replace_in_block(
        self, block_id: str, old: str, new_text: str, *, origin: str | None = None
    ) -> SolutionNotebook:
        """Replace the exact fragment ``old`` inside a block; falls back to a whitespace-normalised match."""
        src = self.block(block_id).source
        if not old.strip():
            raise BlockMatchError(block_id, old)
        if old in src:
            return self.replace_block(block_id, src.replace(old, new_text, 1), origin=origin)
        span = find_normalised(src, old)
        if span is None:
            raise BlockMatchError(block_id, old)
        a, b = span
        return self.replace_block(block_id, src[:a] + new_text + src[b:], origin=origin)

    def locate(self, fragment: str) -> str:
        """The id of the block holding ``fragment`` (exact, then whitespace-normalised)."""
        if not fragment.strip():
            raise BlockMatchError("?", fragment)
        for b in self.code_blocks:
            if fragment.strip() in b.source:
                return b.id
        for b in self.code_blocks:
            if find_normalised(b.source, fragment) is not None:
                return b.id
        raise BlockMatchError("any", fragment)

    def insert_markdown_before(self, block_id: str, text: str) -> SolutionNotebook:
        """A copy with a markdown cell of ``text`` right before block ``block_id``."""
        new = self.copy()
        idx = new.block(block_id).index
        new.nb.cells.insert(idx, nbformat.v4.new_markdown_cell(text))
        return new

    def insert_block_after(
        self,
        after: str | None,
        source: str,
        *,
        block_id: str | None = None,
        role: str = "other",
        origin: str = "",
    ) -> SolutionNotebook:
        """A new code cell right after block ``after`` (``None``: before the first code cell),
        keeping ``block_id`` when this notebook does not use it yet."""
        new = self.copy()
        if after is not None:
            idx = new.block(after).index + 1
        else:
            idx = next((b.index for b in new.code_blocks), len(new.nb.cells))
        meta: dict[str, Any] = {"role": role, "origin": origin}
        if block_id and block_id not in new.block_ids:
            meta["block_id"] = block_id
        new.nb.cells.insert(
            idx, nbformat.v4.new_code_cell(source.strip("\n"), metadata={META: meta})
        )
        new._assign_ids()
        return new

    def delete_block(self, block_id: str) -> SolutionNotebook:
        """This notebook without the code cell of ``block_id``."""
        new = self.copy()
        del new.nb.cells[new.block(block_id).index]
        return new

    def append_block(self, role: str, source: str, *, origin: str = "") -> SolutionNotebook:
        """A copy with a new code cell of ``role`` at the end (it gets the next free id)."""
        new = self.copy()
        new.nb.cells.append(
            nbformat.v4.new_code_cell(
                source.strip("\n"), metadata={META: {"role": role, "origin": origin}}
            )
        )
        new._assign_ids()
        return new

    def record_score(self, value: float | None) -> None:
        """Append ``value`` to every block's score history (in place)."""
        for c in self.nb.cells:
            if c.cell_type == "code":
                c.metadata[META].setdefault("scores", []).append(value)

    def clear_outputs(self) -> SolutionNotebook:
        """A copy with every code cell's outputs and execution count cleared."""
        new = self.copy()
        for c in new.nb.cells:
            if c.cell_type == "code":
                c.outputs, c.execution_count = [], None
        return new

    # -- io ---------------------------------------------------------------------------------
    def write(self, path: str | Path) -> Path:
        """Save as ``.ipynb`` at ``path`` and return it; written through a temporary file, so a
        reader never sees half a notebook."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_suffix(p.suffix + ".tmp")
        nbformat.write(self.nb, tmp)
        tmp.replace(p)
        return p

    def to_dict(self) -> dict[str, Any]:
        """The notebook as a plain nbformat dict (JSON-ready)."""
        return dict(nbformat.from_dict(self.nb))

    # -- internals --------------------------------------------------------------------------
    def _assign_ids(self) -> None:
        self._give_cell_ids()
        used: set[str] = set()
        for c in self.nb.cells:
            if c.cell_type == "code":
                m = c.metadata.setdefault(META, {})
                bid = m.get("block_id")
                if bid and bid not in used:
                    used.add(bid)
        n = 1
        for c in self.nb.cells:
            if c.cell_type != "code":
                continue
            m = c.metadata[META]
            bid = m.get("block_id")
            if not bid or (
                bid in used
                and sum(
                    1
                    for x in self.nb.cells
                    if x.cell_type == "code" and x.metadata.get(META, {}).get("block_id") == bid
                )
                > 1
                and m is not self._first_with(bid)
            ):
                while f"b{n}" in used:
                    n += 1
                m["block_id"] = f"b{n}"
                used.add(f"b{n}")
            m.setdefault("role", "other")

    def _give_cell_ids(self) -> None:
        """Make the notebook nbformat 4.5: every cell an id, valid and unique.

        Notebooks saved as 4.0-4.4 (VS Code, older Jupyter) have no ids, Colab's have ids that
        4.0 does not allow and that need not be valid ones; the cells a run adds carry ids, so
        without this the notebooks a run writes were invalid (and every write logged "Notebook
        JSON is invalid").  A missing, invalid or repeated id (merged notebooks repeat them) gets
        one derived from the cell's place and source, so reading the same file twice gives the
        same ids."""
        if self.nb.get("nbformat") == 4 and int(self.nb.get("nbformat_minor") or 0) < 5:
            self.nb["nbformat_minor"] = 5
        seen: set[str] = set()
        for i, c in enumerate(self.nb.cells):
            cid = c.get("id")
            if not isinstance(cid, str) or not _CELL_ID.fullmatch(cid) or cid in seen:
                text = f"{i}\x00{c.get('source', '')}\x00{cid}".encode()
                cid = hashlib.sha256(text).hexdigest()[:8]
                while cid in seen:
                    cid = uuid.uuid4().hex[:8]
                c["id"] = cid
            seen.add(cid)

    def _first_with(self, bid: str) -> dict[str, Any] | None:
        for c in self.nb.cells:
            if c.cell_type == "code" and c.metadata.get(META, {}).get("block_id") == bid:
                return c.metadata[META]  # type: ignore[no-any-return]
        return None


# the keys nbformat 4 requires of each cell, with the value Jupyter gives a new cell
_CELL_KEYS: dict[str, dict[str, Any]] = {
    "code": {"metadata": {}, "source": "", "outputs": [], "execution_count": None},
    "markdown": {"metadata": {}, "source": ""},
    "raw": {"metadata": {}, "source": ""},
}


def _mend_keys(data: Any) -> Any:
    """``data`` (an ``.ipynb`` file's JSON) with the keys nbformat 4 requires and a writer left
    out filled with a new cell's values, as Jupyter does when it opens such a file: an nbformat
    4.0 notebook written by a script (cells without ``metadata`` or ``outputs``) was refused
    with a jsonschema traceback (hunt E, session 28).  Data that is not a v4 notebook is
    returned as it is, for nbformat to read or refuse."""
    if not (isinstance(data, dict) and data.get("nbformat") == 4):
        return data
    data.setdefault("nbformat_minor", 0)
    if not isinstance(data.get("metadata"), dict):
        data["metadata"] = {}
    cells = data.setdefault("cells", [])
    for cell in cells if isinstance(cells, list) else ():
        if isinstance(cell, dict):
            for key, value in _CELL_KEYS.get(str(cell.get("cell_type")), {}).items():
                cell.setdefault(key, copy.deepcopy(value))
    return data


def _notebook_node(data: Any) -> nbformat.NotebookNode:
    """``data``, a notebook's parsed JSON, as nbformat's reader makes it from the file's text
    (``nbformat.reader.reads`` without parsing the text again): of its own version, unvalidated."""
    if not isinstance(data, dict):
        raise nbformat.NBFormatError("the file's JSON is not an object with 'cells' and 'nbformat'")
    major, minor = nbformat.reader.get_version(data)
    if major not in nbformat.versions:
        raise nbformat.NBFormatError(f"Unsupported nbformat version {major}")
    return nbformat.versions[major].to_notebook_json(data, minor=minor)


def find_normalised(haystack: str, needle: str) -> tuple[int, int] | None:
    """Span in ``haystack`` matching ``needle`` ignoring differences in whitespace.

    First runs of whitespace count as equal; then whitespace is ignored altogether (so
    ``print( x )`` matches ``print(x)``).  Returns ``None`` when neither matches.
    """
    tokens = needle.split()
    if not tokens:
        return None
    m = re.search(r"\s+".join(re.escape(t) for t in tokens), haystack)
    if m:
        return (m.start(), m.end())
    positions = [i for i, ch in enumerate(haystack) if not ch.isspace()]
    squashed = "".join(haystack[i] for i in positions)
    target = "".join(tokens)
    at = squashed.find(target)
    if at < 0:
        return None
    return (positions[at], positions[at + len(target) - 1] + 1)
