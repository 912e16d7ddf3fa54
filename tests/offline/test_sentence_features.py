"""A table with a column of sentences among its features (a passenger's full name, a product's
title), the way outsiders' tables come: before, the column was one category per row (target
codes of values each seen once), so what its words say never reached a model.  Now the layout
names it (``text_feature_cols``) and the tabular cards turn its words into numbers."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.offline.render import render_notebook
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task

FIRST = "John William Mary Anna Owen Harris Laina Lily Thomas Henry Elizabeth Ellen".split()
LAST = "Braund Cumings Heikkinen Futrelle Allen Moran McCarthy Palsson Johnson Nasser".split()
# who survives is told by the title in the name (and a little by the class)
TITLES = {"Mr.": 0.15, "Mrs.": 0.8, "Miss.": 0.75, "Master.": 0.6, "Rev.": 0.0, "Dr.": 0.4}


def _passengers(root: Path, n: int = 500) -> Path:
    """Passengers as a ship's manifest lists them: ``Braund, Mr. Owen Harris``; no sex column."""
    rng = np.random.default_rng(7)
    titles = rng.choice(list(TITLES), n, p=[0.5, 0.15, 0.2, 0.07, 0.04, 0.04])
    names = [
        f"{rng.choice(LAST)}, {t} {' '.join(rng.choice(FIRST, rng.integers(1, 3)))}" for t in titles
    ]
    pclass = rng.integers(1, 4, n)
    p = np.array([TITLES[t] for t in titles]) + 0.1 * (pclass == 1) - 0.05 * (pclass == 3)
    df = pd.DataFrame(
        {
            "PassengerId": np.arange(1, n + 1),
            "Pclass": pclass,
            "Name": names,
            "Age": rng.uniform(1, 70, n).round(0),
            "Fare": rng.lognormal(3, 1, n).round(2),
            "Survived": (rng.uniform(size=n) < p.clip(0, 1)).astype(int),
        }
    )
    inp = root / "input"
    inp.mkdir(parents=True)
    df.iloc[:400].to_csv(inp / "train.csv", index=False)
    df.iloc[400:].drop(columns="Survived").to_csv(inp / "test.csv", index=False)
    df.iloc[400:][["PassengerId"]].assign(Survived=0).to_csv(
        inp / "gender_submission.csv", index=False
    )
    (root / "description.md").write_text(
        "# Manifest\n\nPredict which passengers survived.\n\nMetric: roc_auc\n"
    )
    return root


def test_a_column_of_names_is_sentences_not_a_category(tmp_path: Path) -> None:
    task = load_task(_passengers(tmp_path / "ship"))
    layout = inspect_task(task)
    assert task.modality == "tabular"  # one column of five: still a table
    assert layout.text_feature_cols == ("Name",)
    assert "Name" not in layout.high_card_cols


def test_the_words_of_a_name_reach_the_model_in_a_kernel(tmp_path: Path) -> None:
    """A LightGBM card on the manifest, run in a kernel with and without the name's words: with
    them (``Name_words<i>`` numbers fitted on the training rows, no ``Name`` category) the titles
    they carry lift the validation AUC well above the one the name as a category gives."""
    from kernel import run_notebook

    root = _passengers(tmp_path / "ship")
    policy = OfflinePolicy(load_task(root), RunConfig())
    card = policy.catalog["lightgbm"]
    probe = "\nshown = features.fit_transform(X.head(200), y.head(200))\nprint('COLUMNS', sorted(shown.columns))\n"
    scores = {}
    for words in (True, False):
        layout = policy.ctx.layout if words else replace(policy.ctx.layout, text_feature_cols=())
        nb = render_notebook(policy.catalog, card, replace(policy.ctx, layout=layout))
        feats = nb.blocks_by_role("features")[0]
        nb = nb.replace_block(feats.id, feats.source + probe)
        ran = run_notebook(nb, root, tmp_path / f"work-{words}", timeout=300)
        assert ran.score is not None and ran.submission.is_file(), ran.output[-2000:]
        cols = ran.output.split("COLUMNS", 1)[1].splitlines()[0]
        assert ("'Name_words0'" in cols) is words and ("'Name'" in cols) is not words
        scores[words] = ran.score
    assert scores[True] > scores[False] + 0.1, scores
