"""The hash of the labextension's sources, stored beside the built extension that ships in the repo.

The built extension (``mlestar_jupyter/labextension/``) is committed so that ``pip install .`` needs
no Node.js.  ``jlpm build:prod`` ends by writing this hash; a test compares it with the sources so a
TypeScript change without a rebuild fails CI.

    python scripts/labextension_hash.py write   # after building
    python scripts/labextension_hash.py check   # exit 1 when the build is stale
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ["labextension/src", "labextension/style", "labextension/schema"]
FILES = ["package.json", "tsconfig.json", "yarn.lock"]
STAMP = ROOT / "mlestar_jupyter" / "labextension" / "source-hash.txt"


def source_hash() -> str:
    """SHA-256 over the labextension's source files (paths and contents, in sorted order)."""
    paths = [ROOT / f for f in FILES]
    for folder in SOURCES:
        paths += [p for p in (ROOT / folder).rglob("*") if p.is_file()]
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
        digest.update(path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return digest.hexdigest()


def main(argv: list[str]) -> int:
    """Write or check the stamp; see the module docstring."""
    if argv[1:] == ["write"]:
        STAMP.write_text(source_hash() + "\n")
        return 0
    if argv[1:] == ["check"]:
        stored = STAMP.read_text().strip() if STAMP.exists() else "(missing)"
        if stored != source_hash():
            print(
                "the built labextension is stale: run `jlpm build:prod` and commit "
                "mlestar_jupyter/labextension/",
                file=sys.stderr,
            )
            return 1
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
