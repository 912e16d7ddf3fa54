"""The final notebook keeps the seed its solution was scored with: path l of L renders with
seed + l, and the submission must retrain those models, not path 0's."""

from __future__ import annotations

import dataclasses

from mlestar_jupyter.offline.final_notebook import final_notebook
from mlestar_jupyter.offline.render import render_notebook


def test_a_second_paths_solution_keeps_its_seed(policies) -> None:  # type: ignore[no-untyped-def]
    p = policies["regression"]
    card = p.catalog["xgboost"]
    second = render_notebook(p.catalog, card, dataclasses.replace(p.ctx, seed=p.ctx.seed + 1))
    final = final_notebook(second, p.catalog, p.ctx)  # the policy's own context: seed 0
    setup = final.blocks_by_role("setup")[0].source
    assert f"SEED = {p.ctx.seed + 1}  #" in setup
    assert "MAX_TRAIN_ROWS = None" in setup and "REFIT_ON_ALL_ROWS = True" in setup
    first = final_notebook(render_notebook(p.catalog, card, p.ctx), p.catalog, p.ctx)
    assert f"SEED = {p.ctx.seed}  #" in first.blocks_by_role("setup")[0].source
