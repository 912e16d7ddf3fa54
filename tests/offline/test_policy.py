"""OfflinePolicy: deterministic answers to every role, and notebooks that run."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from kernel import run_notebook

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.policy import AblationSummary, Plan, Policy, RefineTarget
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.task import load_task


def test_implements_the_policy_protocol(policies):
    assert isinstance(policies["tabular"], Policy)


@pytest.mark.parametrize(
    ("task_name", "first", "modality"),
    [
        ("tabular", "lightgbm", "tabular"),
        ("text", "tfidf_linear", "text"),
        ("image", "small_cnn", "image"),
        ("audio", "mfcc_gbm", "audio"),
        ("time_series", "minirocket", "time_series"),
    ],
)
def test_retrieve_picks_cards_by_modality(policies, task_name, first, modality):
    cards = policies[task_name].retrieve(4)
    assert cards[0].name == first
    assert all(modality in c.modalities for c in cards)


def test_retrieve_skips_unfit_and_uninstalled_cards(policies):
    import importlib.util

    assert "nbsvm" not in [
        c.name for c in policies["regression"].retrieve(20)
    ]  # classification only
    names = [c.name for c in policies["regression"].retrieve(20)]
    assert names[0] == "lightgbm" and "hist_gradient_boosting" in names
    assert ("xgboost" in names) == (importlib.util.find_spec("xgboost") is not None)


def test_same_inputs_same_answers(task_dirs):
    a = OfflinePolicy(load_task(task_dirs["tabular"]), RunConfig())
    b = OfflinePolicy(load_task(task_dirs["tabular"]), RunConfig())
    na, nb = a.init_solution(a.retrieve(1)[0]), b.init_solution(b.retrieve(1)[0])
    assert na.to_script() == nb.to_script()
    sa, sb = a.ablation(na, []), b.ablation(nb, [])
    assert [v.notebook.to_script() for v in sa.variants] == [
        v.notebook.to_script() for v in sb.variants
    ]
    ta = a.extract(na, AblationSummary("", 0.9), [])
    tb = b.extract(nb, AblationSummary("", 0.9), [])
    assert ta == tb and a.code(na, ta, ta.plan) == b.code(nb, tb, tb.plan)


def test_ablation_variants_differ_and_skip_studied_parts(policies):
    p = policies["tabular"]
    nb = p.init_solution(p.retrieve(1)[0])
    study = p.ablation(nb, [])
    assert 2 <= len(study.variants) <= 3
    assert len({v.name for v in study.variants}) == len(study.variants)
    # With categorical columns and missing values every tabular block has an ablation: one per block.
    reg = policies["regression"]
    reg_study = reg.ablation(reg.init_solution(reg.retrieve(1)[0]), [])
    assert len({v.block_id for v in reg_study.variants}) == len(reg_study.variants) == 3
    for v in study.variants:
        assert v.notebook.block(v.block_id).source != nb.block(v.block_id).source
        assert [b.source for b in v.notebook.code_blocks if b.id != v.block_id] == [
            b.source for b in nb.code_blocks if b.id != v.block_id
        ]
    summary = p.summarize_ablation(study, 0.90, "", {v.name: 0.80 for v in study.variants})
    names = {v.name for v in study.variants}
    unstudied = p._ablation_variants(nb, skip={(v.block_id, v.name) for v in study.variants})
    again = p.ablation(nb, [summary])
    assert again.variants, "an outer step after every part was studied got an empty ablation"
    if unstudied:  # parts not studied yet come first
        assert not {v.name for v in again.variants} & names
    else:  # every part studied: the same parts are measured again on the current solution
        assert {v.name for v in again.variants} <= names


def test_summary_deltas_respect_metric_direction(policies):
    p = policies["regression"]  # rmse: lower is better
    nb = p.init_solution(p.retrieve(1)[0])
    study = p.ablation(nb, [])
    a, b = study.variants[0].name, study.variants[1].name
    s = p.summarize_ablation(study, 50.0, "", {a: 60.0, b: 45.0})
    deltas = {r.name: r.delta for r in s.results}
    assert deltas[a] == pytest.approx(10.0) and deltas[b] == pytest.approx(
        -5.0
    )  # a's block helps, b's hurts
    assert a in s.text
    # a baseline without a score (it failed): the variants' scores are listed, no deltas, and the
    # extractor still picks a block
    unknown = p.summarize_ablation(study, None, "", {a: 60.0, b: None})
    assert [r.delta for r in unknown.results[:2]] == [None, None]
    assert f"{a}: 60 (no baseline score" in unknown.text and f"{b}: failed to run" in unknown.text
    assert "does not work without" not in unknown.text  # nothing says the block was needed
    # the baseline ran and a variant did not: the summary says the solution needs that block
    needed = p.summarize_ablation(study, 50.0, "", {a: 60.0, b: None})
    assert f"{b}: failed to run (the solution does not work without the original block)" in (
        needed.text
    )
    assert p.extract(nb, unknown, []).block_id in {v.block_id for v in study.variants}


def test_extract_prefers_largest_effect_then_user_block(policies, task_dirs):
    p = policies["tabular"]
    nb = p.init_solution(p.retrieve(1)[0])
    study = p.ablation(nb, [])
    scores = {v.name: 0.97 for v in study.variants}  # every variant worse than the solution
    scores[study.variants[1].name] = 0.50
    summary = p.summarize_ablation(study, 0.98, "", scores)
    assert p.extract(nb, summary, []).block_id == study.variants[1].block_id
    assert (
        p.extract(nb, summary, [study.variants[1].block_id]).block_id != study.variants[1].block_id
    )
    user = OfflinePolicy(load_task(task_dirs["tabular"]), RunConfig(target_block="b7"))
    assert user.extract(nb, summary, []).block_id == "b7"


def test_an_ablation_variant_that_scored_better_is_the_first_plan(policies):
    p = policies["regression"]  # rmse: lower is better
    nb = p.init_solution(p.retrieve(1)[0])
    study = p.ablation(nb, [])
    winner = study.variants[-1]
    scores = {v.name: 60.0 for v in study.variants}
    scores[winner.name] = 45.0  # the simplified block beat the solution's 50
    summary = p.summarize_ablation(study, 50.0, "", scores)
    target = p.extract(nb, summary, [])
    assert target.block_id == winner.block_id and target.plan.strategy == "ablation_variant"
    assert (
        p.code(nb, target, target.plan).strip()
        == winner.notebook.block(winner.block_id).source.strip()
    )
    # a block refined before: its variant that scored better is still the first plan (it ran)
    again = p.extract(nb, summary, [winner.block_id])
    assert again.block_id == winner.block_id and again.plan.strategy == "ablation_variant"
    # a variant that did not beat the solution is no plan, refined block or not
    worse = p.summarize_ablation(study, 50.0, "", {v.name: 55.0 for v in study.variants})
    assert p.extract(nb, worse, []).plan.strategy != "ablation_variant"
    assert p.extract(nb, worse, [winner.block_id]).plan.strategy != "ablation_variant"


def test_strategies_change_code_and_never_repeat(task_dirs):
    p = OfflinePolicy(load_task(task_dirs["tabular"]), RunConfig(target_block="b6"))
    nb = p.init_solution(p.retrieve(1)[0])
    assert nb.block("b6").role == "model"
    target = p.extract(nb, AblationSummary("", 0.905), [])  # the score before refining: 0.905
    assert target.block_id == "b6" and target.plan.strategy
    history: list[tuple[Plan, float | None]] = []
    sources = {nb.block(target.block_id).source}
    for step in range(6):
        plan = p.plan(nb, target, history)
        assert plan.strategy not in {h.strategy for h, _ in history}
        source = p.code(nb, target, plan)
        assert source not in sources, plan
        sources.add(source)
        history.append((plan, 0.9 + 0.01 * (step % 2)))  # every other plan "helps"
    assert any("+" in str(h.strategy) for h, _ in history), (
        "a plan that helped should be built upon"
    )


def test_debug_reverts_a_failed_strategy_and_repairs_imports(policies):
    p = policies["tabular"]
    nb = p.init_solution(p.retrieve(1)[0])
    bid = nb.blocks_by_role("model")[0].id
    target = RefineTarget(bid, Plan(""))
    broken = nb.replace_block(bid, p.code(nb, target, p.plan(nb, target, [])))
    fixed = p.debug(broken, "ValueError: boom", bid)
    assert fixed.block(bid).source == nb.block(bid).source
    setup = nb.blocks_by_role("setup")[0]
    no_pd = nb.replace_block(setup.id, setup.source.replace("import pandas as pd\n", ""))
    repaired = p.debug(no_pd, "NameError: name 'pd' is not defined", setup.id)
    assert "import pandas as pd" in repaired.block(setup.id).source
    assert p.debug(nb, "SomethingElse: ???", None).to_script() == nb.to_script()


def test_debug_of_a_timeout_halves_the_rows_really_used(policies):
    """The row cap starts far above a small task's size: halving the cap itself would change nothing."""
    p = policies["tabular"]  # 426 training rows, MAX_TRAIN_ROWS = 30000
    nb = p.init_solution(p.retrieve(1)[0])
    caps = []
    for _ in range(3):
        nb = p.debug(nb, "timed out after 20s; the kernel was killed", None)
        caps.append(int(re.search(r"^MAX_TRAIN_ROWS = (\d+)", nb.to_script(), re.M).group(1)))
    assert caps == [213, 200, 200]  # 426 rows, halved, down to the floor of 200
    assert p.debug(nb, "timed out after 20s", None).to_script() == nb.to_script()  # at the floor


def test_leakage_and_data_usage_checks_on_own_notebooks(policies):
    for name in ("tabular", "regression", "text", "image", "audio", "time_series"):
        p = policies[name]
        for card in p.retrieve(4):
            nb = p.init_solution(card)
            assert not p.check_leakage(nb).leaky, (name, card.name, p.check_leakage(nb).reason)
            assert p.check_data_usage(nb).unused_files == (), (name, card.name)


def test_leakage_check_finds_and_fixes_a_fit_on_test(policies):
    p = policies["tabular"]
    nb = p.init_solution(p.retrieve(4)[3])  # linear
    bid = nb.blocks_by_role("preprocess")[0].id
    leaky = nb.replace_block(
        bid, nb.block(bid).source + "\nX_test_scaled = preprocessor.fit_transform(X_test)"
    )
    report = p.check_leakage(leaky)
    assert report.leaky and report.block_id == bid
    assert (
        report.fixed_source is not None and "preprocessor.transform(X_test)" in report.fixed_source
    )


def test_data_usage_adds_an_unused_joinable_table(policies):
    p = policies["regression"]
    nb = p.init_solution(p.retrieve(1)[0])
    load = nb.blocks_by_role("load")[0]
    lines = load.source.splitlines()
    without = "\n".join(ln for ln in lines if "clinic" not in ln and "extra" not in ln)
    report = p.check_data_usage(nb.replace_block(load.id, without))
    assert report.unused_files == ("clinics.csv",)
    assert (
        report.fixed is not None
        and 'pd.read_csv(INPUT / "clinics.csv")' in report.fixed.block(load.id).source
    )


def test_merge_ensemble_and_final_submission_run(policies, task_dirs, tmp_path):
    p = policies["tabular"]
    root = task_dirs["tabular"]
    cards = p.retrieve(4)
    a, b = p.init_solution(cards[0]), p.init_solution(cards[3])
    merged = p.merge(a, b)
    assert len(merged.blocks_by_role("load")) == 1  # the data cells are shared
    ran = run_notebook(merged, root, tmp_path / "merge")
    assert ran.score is not None and ran.output.count("Final Validation Performance") == 1

    history: list[tuple[Plan, float | None]] = []
    for _ in range(3):
        plan = p.ensemble_plan([a, merged], history)
        history.append((plan, 0.9))
    assert [h.strategy for h, _ in history] == ["mean", "weighted", "stacking"]
    ens = p.ensemble([a, merged], history[2][0])
    ran_e = run_notebook(ens, root, tmp_path / "ens")
    assert ran_e.score is not None and 0.9 < ran_e.score <= 1.0
    assert len(pd.read_csv(ran_e.submission)) == len(
        pd.read_csv(root / "input" / "sample_submission.csv")
    )

    final = p.make_submission(merged)
    assert (
        "MAX_TRAIN_ROWS and len(y) > MAX_TRAIN_ROWS"
        not in final.blocks_by_role("subsample")[0].source
    )
    assert "REFIT_ON_ALL_ROWS = True" in final.blocks_by_role("setup")[0].source
    ran_f = run_notebook(final, root, tmp_path / "final")
    assert ran_f.score is not None and ran_f.submission.exists()


def test_make_submission_uses_every_row(policies, task_dirs, tmp_path):
    p = OfflinePolicy(policies["text"].task, RunConfig(max_train_rows=100))
    nb = p.init_solution(p.retrieve(1)[0])
    assert "train on 80 rows" not in nb.to_script()
    search = run_notebook(nb, task_dirs["text"], tmp_path / "search")
    assert "train 80, validation 20" in search.output
    final = run_notebook(p.make_submission(nb), task_dirs["text"], tmp_path / "final")
    assert "train 216, validation 54" in final.output


def _ensemble_with_validations(p, solutions, kfold: list[bool]):
    """The ensemble of ``solutions`` with each model's k-fold decision forced (True: k-fold however
    slow the machine; False: "too slow", the hold-out), in notebook order."""
    ens = p.ensemble(solutions, p.ensemble_plan(solutions, []))
    rule = "5 * one_fit <= allowed"
    evaluates = [blk for blk in ens.blocks_by_role("evaluate") if rule in blk.source]
    assert len(evaluates) == len(kfold)
    for blk, k in zip(evaluates, kfold, strict=True):
        ens = ens.replace_in_block(blk.id, rule, str(k))
    return ens


def test_an_ensemble_of_hold_out_and_k_folded_models_compares_them_on_the_hold_out(
    policies, task_dirs, tmp_path
):
    """On a slow machine one model of an ensemble may be scored on the hold-out (its fit was too
    slow for a k-fold) and the next ones by k-fold, which puts every row's labels in ``y_val``:
    the third model must keep the hold-out's labels beside its hold-out predictions, or the
    ensemble cannot compare the three (CI found the mix under load)."""
    p = policies["tabular"]
    root = task_dirs["tabular"]
    cards = p.retrieve(4)
    a, b, c = (p.init_solution(cards[i]) for i in (0, 3, 1))
    ran = run_notebook(
        _ensemble_with_validations(p, [a, b, c], [False, True, True]), root, tmp_path
    )
    assert ran.output.count("validation: the hold-out") == 1
    assert ran.output.count("validation: 5-fold cross-validation") == 2
    # Compared on the hold-out, so the ensemble's score is the hold-out's.
    assert ran.score is not None and 0.9 < ran.score <= 1.0
    assert len(pd.read_csv(ran.submission)) == len(
        pd.read_csv(root / "input" / "sample_submission.csv")
    )


def test_after_a_k_folded_merge_a_slow_model_is_k_folded_too(policies, task_dirs, tmp_path):
    """A merged solution whose models were k-folded keeps no hold-out predictions, so a model that
    follows it in an ensemble is k-folded as well, however slow its fit was."""
    p = policies["tabular"]
    root = task_dirs["tabular"]
    cards = p.retrieve(4)
    a, b = p.init_solution(cards[0]), p.init_solution(cards[3])
    ens = _ensemble_with_validations(p, [p.merge(a, b), b], [True, True, False])
    # A generous time limit: the first model's k-fold is not given up for a slow first fold of a
    # fresh kernel on a loaded machine (its 5 folds may take half the limit; 10 s without one).
    (tmp_path / "time_limit.txt").write_text("600")
    ran = run_notebook(ens, root, tmp_path)
    assert "validation: the hold-out" not in ran.output
    assert ran.output.count("validation: 5-fold cross-validation") == 3
    assert ran.score is not None and 0.9 < ran.score <= 1.0
