"""The TypeScript interfaces mirror the server's models: ``labextension/api-schema.json`` is the
schema of this checkout's models, and ``models.ts`` has every REST model and field it names."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mlestar_jupyter.journal import EVENT_MODELS
from mlestar_jupyter.server.schema import REST_MODELS, api_schema, api_schema_text

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_FILE = ROOT / "labextension" / "api-schema.json"
MODELS_TS = ROOT / "labextension" / "src" / "models.ts"


def ts_interfaces(text: str) -> dict[str, set[str]]:
    """``{interface name: field names}`` of the exported interfaces of a TypeScript file."""
    out: dict[str, set[str]] = {}
    for m in re.finditer(r"export interface (\w+)(?: extends [\w, ]+)? \{\n(.*?)\n\}", text, re.S):
        out[m.group(1)] = set(re.findall(r"^ {2}(\w+)\??:", m.group(2), re.M))
    return out


def test_committed_schema_is_the_models_schema() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == api_schema_text(), (
        "labextension/api-schema.json is stale: run `python scripts/api_schema.py write` and "
        "update labextension/src/models.ts to match"
    )


def test_schema_covers_every_event_type() -> None:
    schema = api_schema()
    assert set(schema["events"]) == set(EVENT_MODELS)
    assert schema["events"]["candidate"]["properties"]["score"]["anyOf"][0]["type"] == "number"


@pytest.mark.parametrize("model", REST_MODELS, ids=lambda m: m.__name__)
def test_models_ts_mirrors_each_rest_model(model: type) -> None:
    interfaces = ts_interfaces(MODELS_TS.read_text(encoding="utf-8"))
    name = f"I{model.__name__}"
    assert name in interfaces, (
        f"models.ts has no interface {name} for the pydantic {model.__name__}"
    )
    fields = set(api_schema()["rest"][model.__name__]["properties"])
    missing = sorted(fields - interfaces[name])
    assert not missing, f"models.ts: {name} lacks {missing} (fields of {model.__name__})"


def test_the_interface_check_can_fail() -> None:
    ts = "export interface IPauseBody {\n  other: boolean;\n}\n"
    assert ts_interfaces(ts) == {"IPauseBody": {"other"}}
    assert "pause" not in ts_interfaces(ts)["IPauseBody"]
    assert json.loads(api_schema_text())["rest"]["PauseBody"]["required"] == ["pause"]
