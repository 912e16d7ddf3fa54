"""The order of a catalog block's plans: parallel paths try different kinds of change first
(path i of L takes i, i + L, ...), so that two paths on the same card do not spend the run trying
the same changes side by side; a strategy the data asks for (a skewed target's log, ordered
grades' ranks) stays first on all; a plan whose code would not change is never proposed."""

from __future__ import annotations

from pathlib import Path

from test_issue21_strategies import _priced_goods

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.policy import AblationSummary, ModelCard, Plan, RefineTarget
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.task import load_task


def _plans(policy: OfflinePolicy, card: str, role: str, n: int) -> list[str]:
    """The first ``n`` plans for ``card``'s ``role`` block when none of them helps."""
    nb = policy.init_solution(ModelCard(card, ""))
    block = nb.blocks_by_role(role)[0].id
    target = RefineTarget(block, Plan(""))
    history: list[tuple[Plan, float | None]] = []
    for _ in range(n):
        plan = policy.plan(nb, target, history)
        history.append((plan, None))  # failed: the planner moves on
    return [str(p.strategy) for p, _ in history]


def test_two_paths_try_different_strategies_first(task_dirs) -> None:  # type: ignore[no-untyped-def]
    task = load_task(task_dirs["tabular"])
    config = RunConfig(parallel_solutions=2)
    alone = _plans(OfflinePolicy(task, RunConfig(parallel_solutions=1)), "lightgbm", "model", 4)
    p0 = _plans(OfflinePolicy(task, config, path=0), "lightgbm", "model", 4)
    p1 = _plans(OfflinePolicy(task, config, path=1, seed=1), "lightgbm", "model", 4)
    assert p0[0] == alone[0]  # the first path keeps the order's first choice
    assert (
        p1[0] != p0[0] and p1[0] in alone[:2]
    )  # the second path starts from the second kind of change
    assert len(set(p0[:2]) | set(p1[:2])) == 4  # their first two plans never overlap
    # one path alone (L = 1) walks the single order whatever its index
    assert (
        _plans(OfflinePolicy(task, RunConfig(parallel_solutions=1), path=1), "lightgbm", "model", 4)
        == alone
    )


def test_what_the_data_asks_for_stays_first_on_every_path(tmp_path: Path) -> None:
    task = load_task(_priced_goods(tmp_path / "rmsle", "rmsle"))
    for path in (0, 1):
        p = OfflinePolicy(task, RunConfig(parallel_solutions=2), path=path)
        nb = p.init_solution(ModelCard("hist_gradient_boosting", ""))
        target = p.extract(nb, AblationSummary(text="", baseline=None), [])
        assert target.plan.strategy == "ordered_codes"


def test_a_plan_that_changes_nothing_in_the_code_is_not_proposed(task_dirs) -> None:  # type: ignore[no-untyped-def]
    """The linear card classifies with C and regresses with alpha: on a classification the
    ridge-penalty plans would render the same code, so the planner skips them."""
    task = load_task(task_dirs["tabular"])
    for path in (0, 1):
        plans = _plans(OfflinePolicy(task, RunConfig(), path=path), "linear", "model", 6)
        assert not any("alpha" in p for p in plans), plans
        assert {"less_reg_C", "more_reg_C"} <= set(plans)
        real = [p for p in plans if p != "exhausted"]
        assert len(real) == len(set(real))  # nothing proposed twice


def test_a_path_keeps_its_kinds_of_change_after_one_helped(task_dirs) -> None:  # type: ignore[no-untyped-def]
    """The text card's vectorizer: after each path's first plan helped, each path's next plan
    builds on it with a change from its own share, not the other path's first one."""
    task = load_task(task_dirs["text"])
    firsts, seconds = [], []
    for path in (0, 1):
        policy = OfflinePolicy(task, RunConfig(parallel_solutions=2), path=path)
        nb = policy.init_solution(ModelCard("tfidf_linear", ""))
        target = RefineTarget(nb.blocks_by_role("preprocess")[0].id, Plan(""))
        first = policy.plan(nb, target, [])
        second = policy.plan(nb, target, [(first, 0.99)])  # it helped (accuracy)
        firsts.append(str(first.strategy))
        seconds.append(str(second.strategy).split("+"))
    assert firsts[0] != firsts[1]
    for mine, theirs, (base, step) in zip(firsts, reversed(firsts), seconds, strict=True):
        assert base == mine and step != theirs  # on top of its own first, not the other's
