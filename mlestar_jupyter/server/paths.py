"""Resolving client paths inside the Jupyter server root (and refusing the rest)."""

from __future__ import annotations

import posixpath
from pathlib import Path

from ..messages import clip, quote
from .errors import InvalidRequest, PathOutsideRoot


def resolve_inside(root: Path, path: str, field: str) -> Path:
    """``path`` (root-relative, or absolute inside ``root``) resolved, symlinks followed.

    Raises ``PathOutsideRoot`` when the result leaves ``root`` by ``..``, by being absolute
    elsewhere, or through a symlink.
    """
    if "\x00" in path:
        raise InvalidRequest(
            f"{field} holds a NUL byte; pass a plain path",
            [{"field": field, "message": "NUL byte in a path"}],
        )
    root = root.resolve()
    candidate = Path(path) if Path(path).is_absolute() else root / path
    try:
        resolved = candidate.resolve()
        resolved.exists()  # a name too long or otherwise unusable fails here, not later
    except (OSError, ValueError) as e:
        raise InvalidRequest(
            f"{field} {quote(path)} is not a usable path ({clip(str(getattr(e, 'strerror', None) or e), 80)})",
            [{"field": field, "message": "not a usable path"}],
        ) from None
    if resolved != root and root not in resolved.parents:
        raise PathOutsideRoot(
            f"{field} {quote(path)} is outside the Jupyter root {str(root)!r}; "
            "pass a path relative to the folder Jupyter was started in",
            [{"field": field, "message": "outside the server root"}],
        )
    return resolved


def relative_to_root(root: Path, path: Path) -> str:
    """``path`` as a ``/``-separated root-relative string (absolute if outside the root)."""
    try:
        rel = path.resolve().relative_to(root.resolve())
    except ValueError:
        return str(path)
    return rel.as_posix() if str(rel) != "." else ""


def normalise_rel(path: str) -> str:
    """A client's root-relative path in canonical form (for comparisons)."""
    p = posixpath.normpath(path.replace("\\", "/")).lstrip("/")
    return "" if p == "." else p
