"""In a merged notebook two members' blocks can have the same source (XGBoost's and LightGBM's
default train block): each block is refined as its own card's, so LightGBM's early stopping
(``callbacks=``) is never written into the XGBoost member."""

from __future__ import annotations

from mlestar_jupyter.agent.policy import ModelCard, Plan, RefineTarget
from mlestar_jupyter.notebook import META


def test_same_source_blocks_keep_their_own_card(policies) -> None:  # type: ignore[no-untyped-def]
    p = policies["regression"]
    xgb, lgbm = (p.init_solution(ModelCard(c, "")) for c in ("xgboost", "lightgbm"))
    merged = p.merge(xgb, lgbm)
    trains = merged.blocks_by_role("train")
    assert len(trains) == 2 and trains[0].source == trains[1].source  # the premise
    cards = [merged.cell(b.id).metadata[META]["offline"]["card"] for b in trains]
    assert cards == ["xgboost", "lightgbm"]
    plan = Plan("early stopping", "early_stopping", {"role": "train", "role_params": {}})
    for block, card in zip(trains, cards, strict=True):
        info = p.blocks.info(merged, block.id)
        assert info is not None and info[0].name == card
        stopping = dict(info[2], early_stopping=True)
        code = p.code(
            merged,
            RefineTarget(block.id, plan),
            Plan(plan.text, plan.strategy, {"role": "train", "role_params": stopping}),
        )
        assert ("callbacks=" in code) == (card == "lightgbm"), card
