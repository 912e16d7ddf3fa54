"""Notebooks written the way Kaggle and teaching notebooks are (outsider hunt, session 20).

* ``sub[TARGET] = test_preds`` then ``sub.to_csv("submission.csv")``: the column of the
  submission was read as an engineered feature group, so every ablation switched the
  submission's column off ("without the engineered feature group: delta +0") and a refinement
  step targeted it ("Every strategy for this features code has been tried").
* A teacher's helper ``def load_data(name): return pd.read_csv(DATA_DIR + name)`` called as
  ``load_data("train.csv")``: the bare name was pointed at ``input/train.csv`` while
  ``DATA_DIR = "data/"`` stayed, so the notebook read ``data/input/train.csv`` and the run
  ended ``not_understood`` with a submission worse than the notebook's own.
"""

from __future__ import annotations

import pytest
from test_submission_cell import BREAST_CANCER, _nb

from mlestar_jupyter.agent.data_paths import point_to_input
from mlestar_jupyter.notebook.roles import analyze

READ = (
    "import pandas as pd\n"
    "train = pd.read_csv('input/train.csv')\ntest = pd.read_csv('input/test.csv')\n"
    "sub = pd.read_csv('input/sample_submission.csv')\n"
    "TARGET = 'target'\nFEATURES = [c for c in train.columns if c not in ('id', TARGET)]"
)
FIT = (
    "from sklearn.linear_model import LogisticRegression\n"
    "model = LogisticRegression(max_iter=500)\n"
    "model.fit(train[FEATURES], train[TARGET])\n"
    "test_preds = model.predict_proba(test[FEATURES])[:, 1]"
)


@pytest.mark.parametrize(
    "cell",
    [
        "sub[TARGET] = test_preds\nsub.to_csv('submission.csv', index=False)\nsub.head()",
        "sample = sub\nsample['target'] = test_preds\n"
        "sample.to_csv('/kaggle/working/submission.csv', index=False)",
    ],
)
def test_the_submission_column_is_no_engineered_feature(cell: str) -> None:
    analysis = analyze(_nb(READ, FIT, cell))
    last = analysis.cells[-1]
    assert [s.role for s in last.segments if s.role == "features"] == []
    assert "submission" in [s.role for s in last.segments]


def test_a_feature_column_written_to_a_feature_file_stays_a_feature() -> None:
    cell = "train['ratio'] = train['a'] / train['b']\ntrain.to_csv('train_fe.csv', index=False)"
    analysis = analyze(_nb(READ, cell))
    assert "features" in [s.role for s in analysis.cells[-1].segments]


def test_a_helper_joining_its_folder_to_a_parameter_reads_the_task_data() -> None:
    """A teacher's ``load_data(name)`` joining ``DATA_DIR = "data/"`` to its parameter: the bare
    names given to it were pointed at ``input/`` and the folder kept, so the notebook read
    ``data/input/train.csv`` and the run ended ``not_understood``.  The folder is pointed at
    ``input/`` and the names stay as written."""
    cells = (
        'import pandas as pd\nDATA_DIR = "data/"\n\n'
        "def load_data(name):\n    return pd.read_csv(DATA_DIR + name)",
        'train_df = load_data("train.csv")\ntest_df = load_data("test.csv")',
    )
    out, _ = point_to_input(_nb(*cells), BREAST_CANCER / "input")
    ns: dict[str, object] = {}
    # what the notebook opens once its folder variable and the bare names are pointed
    exec(out.code_blocks[0].source.replace("pd.read_csv(DATA_DIR + name)", "DATA_DIR + name"), ns)
    read = [
        eval(line.split("=", 1)[1].strip(), ns)  # noqa: S307
        for line in out.code_blocks[1].source.splitlines()
    ]
    assert read == ["input/train.csv", "input/test.csv"]


def test_labels_put_in_the_test_table_and_written_by_a_column_selection_become_probabilities() -> (
    None
):
    """``df_test['target'] = clf.predict(...)`` then ``df_test[['id', 'target']].to_csv(...)``
    for an AUC: the run scored the model's probabilities (validation 1.0) but handed in its
    0/1 labels (graded AUC 0.959 where the probabilities give 0.99)."""
    from mlestar_jupyter.offline.user_code.proba_submission import HELPER, probabilities_written
    from mlestar_jupyter.task import load_task

    write = (
        "clf.fit(X, y)\n"
        "df_test['target'] = clf.predict(df_test.drop('id', axis=1))\n"
        "df_test[['id', 'target']].to_csv('my_submission.csv', index=False)"
    )
    out = probabilities_written(_nb("clf.fit(X, y)", write), load_task(BREAST_CANCER))
    assert out.code_blocks[-1].source == HELPER + write.replace(
        "clf.predict(df_test.drop('id', axis=1))",
        "_positive_proba(clf, df_test.drop('id', axis=1))",
    )


def test_the_added_score_cell_says_which_line_a_run_reads() -> None:
    """A notebook printing ``F1 macro: ...`` or ``auc ...`` was told it "prints no validation
    score in the task's metric": it does; the run reads only one line, which the note names."""
    from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
    from mlestar_jupyter.task import load_task

    cells = (
        READ.replace("input/sample_submission.csv", "input/test.csv"),
        "from sklearn.model_selection import train_test_split\n"
        "from sklearn.linear_model import LogisticRegression\n"
        "from sklearn.metrics import roc_auc_score\n"
        "X_tr, X_va, y_tr, y_va = train_test_split(train[FEATURES], train[TARGET])\n"
        "model = LogisticRegression(max_iter=500).fit(X_tr, y_tr)\n"
        "print('auc', roc_auc_score(y_va, model.predict_proba(X_va)[:, 1]))",
    )
    prepared = prepare_user_notebook(_nb(*cells), load_task(BREAST_CANCER))
    assert prepared.understood
    assert "'Final Validation Performance: <score>'" in prepared.note
    assert "prints no validation score in the task's metric" not in prepared.note
