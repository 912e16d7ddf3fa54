"""``POST /mlestar/tasks/import`` on a real jupyter_server: preview, write, field errors, paths."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from task_import.competitions import PAGES, house_prices
from tornado.httpclient import HTTPClientError
from traitlets.config import Config

from mlestar_jupyter.task import load_task


@pytest.fixture
def jp_server_config() -> Config:
    return Config({"ServerApp": {"jpserver_extensions": {"mlestar_jupyter.server": True}}})


@pytest.fixture
def competition(jp_root_dir: Path) -> Path:
    """A saved page and the downloaded files inside the server root."""
    d = jp_root_dir / "downloads"
    d.mkdir()
    house_prices(d)
    shutil.copy(PAGES / "house_prices.md", d / "house_prices.md")
    return d


async def post(jp_fetch: Any, body: dict[str, Any]) -> tuple[int, Any]:
    try:
        r = await jp_fetch("mlestar", "tasks", "import", method="POST", body=json.dumps(body))
    except HTTPClientError as e:
        assert e.response is not None
        return e.code, json.loads(e.response.body)
    return r.code, json.loads(r.body)


async def test_preview_then_write(jp_fetch: Any, jp_root_dir: Path, competition: Path) -> None:
    body = {
        "sources": ["downloads/house_prices.md"],
        "data": ["downloads/house"],
        "out": "tasks/house",
    }
    code, preview = await post(jp_fetch, {**body, "preview": True})
    assert code == 200 and preview["written"] is False and preview["task_dir"] == "tasks/house"
    assert preview["task"]["metric"]["metric_name"] == "rmsle"
    assert preview["guessed"]["target_col"].startswith("the sample submission")
    assert not (jp_root_dir / "tasks" / "house" / "task.json").exists()
    code, written = await post(jp_fetch, {**body, "target": "SalePrice"})
    assert code == 201 and written["written"] is True
    assert load_task(jp_root_dir / "tasks" / "house").target == "SalePrice"


async def test_fields_that_do_not_check_out_are_a_400(
    jp_fetch: Any, jp_root_dir: Path, competition: Path
) -> None:
    shutil.copy(PAGES / "bad_no_metric.md", competition / "bad.md")
    code, err = await post(
        jp_fetch, {"sources": ["downloads/bad.md"], "data": ["downloads/house"], "out": "t"}
    )
    assert code == 400 and [f["field"] for f in err["fields"]] == ["metric"]
    assert "Metric: <name>" in err["fields"][0]["message"]
    code, err = await post(jp_fetch, {"data": ["downloads/house"], "out": "t", "bogus": 1})
    assert code == 400 and err["fields"][0]["field"] == "bogus"


async def test_paths_outside_the_root_are_forbidden(
    jp_fetch: Any, jp_root_dir: Path, competition: Path, tmp_path: Path
) -> None:
    for body in (
        {"sources": ["downloads/house_prices.md"], "data": ["downloads/house"], "out": "../x"},
        {"sources": ["/etc/passwd"], "data": ["downloads/house"], "out": "t"},
        {"from_mlebench": "../..", "out": "t"},
    ):
        code, err = await post(jp_fetch, body)
        assert code == 403, (body, err)
        assert "outside" in err["message"]
    assert not (jp_root_dir.parent / "x").exists()
