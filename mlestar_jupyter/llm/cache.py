"""A disk cache of LLM answers, one JSON file per request key, written atomically.

The key is the sha256 of everything that shapes the answer (backend, model, messages, sampling
parameters, schema, search flag, salt) — not the journal-only ``role``.  Entries are written the
moment an answer arrives (temp file + fsync + rename), so a run killed right after still finds it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .types import LLMRequest, LLMResponse


def request_key(identity: str, req: LLMRequest) -> str:
    """The cache key of ``req`` sent to the backend identified by ``identity`` (``id:model``)."""
    payload = {
        "backend": identity,
        "messages": [[m.role, m.content] for m in req.messages],
        "temperature": req.temperature,
        "max_tokens": req.max_tokens,
        "json_schema": req.json_schema,
        "search": req.search,
        "salt": req.salt,
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the whole new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class DiskCache:
    """Answers by key under ``root/<key[:2]>/<key>.json``."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> LLMResponse | None:
        """The stored answer, or None (a missing or unreadable entry is a miss)."""
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            return LLMResponse.from_json(data["response"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, req: LLMRequest, resp: LLMResponse, **extra: Any) -> None:
        """Store ``resp`` for ``key`` (with the request, for people reading the cache)."""
        entry = {"key": key, "request": req.to_json(), "response": resp.to_json(), **extra}
        atomic_write_text(self._path(key), json.dumps(entry, ensure_ascii=False, indent=1))

    def __len__(self) -> int:
        return sum(1 for _ in self.root.glob("??/*.json")) if self.root.exists() else 0
