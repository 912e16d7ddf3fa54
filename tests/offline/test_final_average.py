"""For a card whose training is random (the random forest, the small CNN: ``refit_average``), the
final notebook's submission averages the refit on every labelled row with the model that was
validated (trained without the validation rows): the refit is a new draw, and two fits vary less
than one.  A linear model or a booster submits its refit alone (averaging made them no better:
benchmarks/results/final_average.md).  Checked in a real kernel, with the check computed apart
from the notebook's own variables."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from kernel import run_notebook

from mlestar_jupyter.offline.catalog import Catalog
from mlestar_jupyter.offline.final_notebook import final_notebook
from mlestar_jupyter.offline.render import RenderContext, render_notebook

# Appended to the final notebook: refit and validated predictions, each recomputed from a fresh
# copy of the card's model (before refitting, `model` is the validated one; the card is
# deterministic, so the same fit gives the same predictions).
CHECK = """
import copy as _copy
_fresh = _copy.deepcopy(_untrained)
_validated = predict(train(_copy.deepcopy(_untrained), X_train, y_train), X_test)
_refit = predict(train(_fresh, X, y), X_test)
np.save("validated.npy", np.asarray(_validated, dtype=float))
np.save("refit.npy", np.asarray(_refit, dtype=float))
"""


def _final_with_check(catalog: Catalog, card: str, ctx: RenderContext):  # type: ignore[no-untyped-def]
    nb = final_notebook(render_notebook(catalog, catalog[card], ctx), catalog, ctx)
    model = nb.blocks_by_role("model")[0]
    # keep an untrained copy of the card's model, made right after the model cell
    nb = nb.insert_block_after(model.id, "import copy\n_untrained = copy.deepcopy(model)\n")
    return nb.append_block("other", CHECK)


def _run(policies, task_dirs, tmp_path, task: str, card: str = "random_forest"):  # type: ignore[no-untyped-def]
    """Run ``card``'s final notebook on ``task``: (validated, refit, submission)."""
    p = policies[task]
    ran = run_notebook(_final_with_check(p.catalog, card, p.ctx), task_dirs[task], tmp_path)
    assert ran.score is not None
    validated, refit = np.load(tmp_path / "validated.npy"), np.load(tmp_path / "refit.npy")
    assert not np.allclose(validated, refit)  # the two fits differ: the mean is not one of them
    return validated, refit, pd.read_csv(ran.submission)


def test_regression_submission_is_the_mean_of_refit_and_validated(policies, task_dirs, tmp_path):  # type: ignore[no-untyped-def]
    validated, refit, sub = _run(policies, task_dirs, tmp_path, "regression")
    target = json.loads((task_dirs["regression"] / "task.json").read_text())["target_col"]
    np.testing.assert_allclose(sub[target].to_numpy(), (validated + refit) / 2, rtol=1e-6)


def test_class_probabilities_are_averaged_and_still_sum_to_one(policies, task_dirs, tmp_path):  # type: ignore[no-untyped-def]
    validated, refit, sub = _run(policies, task_dirs, tmp_path, "wine")
    got = sub[sorted(["barolo", "grignolino", "barbera"])].to_numpy()  # the models' column order
    np.testing.assert_allclose(got, (validated + refit) / 2, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-6)


def test_a_linear_models_submission_is_its_refit_alone(policies, task_dirs, tmp_path):  # type: ignore[no-untyped-def]
    assert not policies["regression"].catalog["linear"].refit_average
    _, refit, sub = _run(policies, task_dirs, tmp_path, "regression", card="linear")
    target = json.loads((task_dirs["regression"] / "task.json").read_text())["target_col"]
    np.testing.assert_allclose(sub[target].to_numpy(), refit, rtol=1e-6)


def test_the_cards_that_average_are_those_whose_training_is_random(policies) -> None:  # type: ignore[no-untyped-def]
    catalog = policies["regression"].catalog
    averaging = {c.name for c in catalog.cards.values() if c.refit_average}
    assert averaging == {"random_forest", "small_cnn"}


def _predict_cell(policies) -> str:  # type: ignore[no-untyped-def]
    p = policies["wine"]
    card = p.catalog["random_forest"]
    nb = final_notebook(render_notebook(p.catalog, card, p.ctx), p.catalog, p.ctx)
    return nb.blocks_by_role("predict")[0].source


class _Prior:
    """A model whose probabilities are its training classes' shares (enough to see columns move)."""

    def fit(self, X, y):  # type: ignore[no-untyped-def]
        self.classes_, counts = np.unique(np.asarray(y), return_counts=True)
        self.share_ = counts / counts.sum()
        return self

    def predict_proba(self, X):  # type: ignore[no-untyped-def]
        return np.tile(self.share_, (len(X), 1))


def test_a_class_only_the_validation_rows_hold_gets_half_the_refits_probability(
    policies, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)  # the cell writes ./final/submission.csv
    source = _predict_cell(policies)
    (tmp_path / "input").mkdir()
    pd.DataFrame({"id": [10, 11], "a": 1 / 3, "b": 1 / 3, "rare": 1 / 3}).to_csv(
        tmp_path / "input" / "sample_submission.csv", index=False
    )
    y_train = pd.Series(["a", "a", "b", "b"])
    y = pd.concat([y_train, pd.Series(["rare", "a", "b", "b"])], ignore_index=True)
    X = pd.DataFrame({"x": range(len(y))})
    model = _Prior().fit(X.iloc[:4], y_train)  # validated: never saw "rare"
    space: dict[str, object] = {
        "np": np,
        "pd": pd,
        "Path": Path,
        "INPUT": tmp_path / "input",
        "REFIT_ON_ALL_ROWS": True,
        "model": model,
        "X": X,
        "y": y,
        "X_test": X.iloc[:2],
        "test_ids": pd.Series([10, 11]),
        "train": lambda m, X, y: m.fit(X, y),
        "predict": lambda m, X: m.predict_proba(X),
    }
    exec(compile(_helpers(policies) + "\n" + source, "predict", "exec"), space)
    assert (tmp_path / "final" / "submission.csv").is_file()
    assert list(space["classes_"]) == ["a", "b", "rare"]  # type: ignore[call-overload]
    got = np.asarray(space["test_pred"])[0]
    # validated: a 1/2, b 1/2, rare 0; refit on the 8 rows: a 3/8, b 4/8, rare 1/8
    np.testing.assert_allclose(got, [(0.5 + 3 / 8) / 2, (0.5 + 4 / 8) / 2, (0 + 1 / 8) / 2])


def _helpers(policies) -> str:  # type: ignore[no-untyped-def]
    """The setup cell's ``as_submission`` (the predict cell writes the submission with it)."""
    p = policies["wine"]
    nb = render_notebook(p.catalog, p.catalog["linear"], p.ctx)
    setup = nb.blocks_by_role("setup")[0].source
    start = setup.index("def as_submission")
    end = setup.find("\n\n\n", start)
    return setup[start : end if end > 0 else None]
