"""Issue 21, part 2, in a short run: the first candidates on a table with a date column and
ordered grades get the date's parts from the start (every tabular card) and the grades' ranks as
the first plan of the first refinement (after a skewed target's log, which comes first)."""

from __future__ import annotations

from pathlib import Path

from test_issue21_strategies import _priced_goods

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.policy import AblationSummary, ModelCard
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.task import load_task

TABULAR_CARDS = ("hist_gradient_boosting", "lightgbm", "xgboost", "random_forest", "linear")


def test_every_initial_tabular_solution_splits_the_date(tmp_path: Path) -> None:
    p = OfflinePolicy(load_task(_priced_goods(tmp_path / "t")), RunConfig())
    for card in TABULAR_CARDS:
        feats = p.init_solution(ModelCard(card, "")).blocks_by_role("features")[0].source
        assert 'for col in ["sold"]:' in feats and '_dayofyear"' in feats and '_days"' in feats
        assert "col, scale in" not in feats  # ranks are a plan, not the default
        assert "TopInteractions" not in feats  # numeric ratios too


def test_grades_are_ranked_in_the_first_refinement(tmp_path: Path) -> None:
    """RMSLE (the target is already fitted on logs): the first block refined is the features
    block and its first plan ranks the grades, before the ablation's largest effect."""
    p = OfflinePolicy(load_task(_priced_goods(tmp_path / "rmsle", "rmsle")), RunConfig())
    nb = p.init_solution(ModelCard("hist_gradient_boosting", ""))
    target = p.extract(nb, AblationSummary(text="", baseline=None), [])
    assert nb.block(target.block_id).role == "features"
    assert target.plan.strategy == "ordered_codes"
    assert "col, scale in" in p.code(nb, target, target.plan)
    # once that block has been refined, the extractor moves on
    other = p.extract(nb, AblationSummary(text="", baseline=None), [target.block_id])
    assert other.block_id != target.block_id


def test_a_skewed_target_is_logged_first_then_the_grades_ranked(tmp_path: Path) -> None:
    p = OfflinePolicy(load_task(_priced_goods(tmp_path / "rmse")), RunConfig())
    nb = p.init_solution(ModelCard("lightgbm", ""))
    first = p.extract(nb, AblationSummary(text="", baseline=None), [])
    assert nb.block(first.block_id).role == "train" and first.plan.strategy == "log_target"
    second = p.extract(nb, AblationSummary(text="", baseline=None), [first.block_id])
    assert nb.block(second.block_id).role == "features"
    assert second.plan.strategy == "ordered_codes"


def test_without_ordered_scales_nothing_changes(task_dirs) -> None:  # type: ignore[no-untyped-def]
    """Breast cancer has no ordered scale: the features block is not singled out."""
    p = OfflinePolicy(load_task(task_dirs["tabular"]), RunConfig())
    nb = p.init_solution(ModelCard("hist_gradient_boosting", ""))
    target = p.extract(nb, AblationSummary(text="", baseline=None), [])
    assert target.plan.strategy != "ordered_codes"
