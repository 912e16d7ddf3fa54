"""Write or check ``labextension/api-schema.json``: the JSON schema of the REST models, the
journal's event types and the run summary (``mlestar_jupyter.server.schema``).

    python scripts/api_schema.py write   # after changing a model
    python scripts/api_schema.py check   # exit 1 when the file is stale
"""

from __future__ import annotations

import sys
from pathlib import Path

from mlestar_jupyter.server.schema import api_schema_text

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_FILE = ROOT / "labextension" / "api-schema.json"


def main(argv: list[str]) -> int:
    """Write or check the schema file; see the module docstring."""
    if argv[1:] == ["write"]:
        SCHEMA_FILE.write_text(api_schema_text(), encoding="utf-8")
        return 0
    if argv[1:] == ["check"]:
        current = SCHEMA_FILE.read_text(encoding="utf-8") if SCHEMA_FILE.exists() else ""
        if current != api_schema_text():
            print(
                f"{SCHEMA_FILE} is stale: run `python scripts/api_schema.py write`, update "
                "labextension/src/models.ts to match, and commit both",
                file=sys.stderr,
            )
            return 1
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
