"""A text task's other columns: a tweet's ``keyword`` joins the text as a tagged word when its
values recur in the test rows; a column whose test values are all new (reviews of films the
training rows never saw) is left out.

Before, a text task's notebook read its text column only: the Kaggle "Disaster Tweets" layout
(``id, keyword, location, text, target``) lost its keyword, which carries much of the signal
(an outsider's practice version of it: F1 0.853 on its held-out rows, 0.928 with the keyword).
"""

from __future__ import annotations

import random
from pathlib import Path

import pandas as pd

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task

WORDS = "the a crowd saw this news today near my house just now again lol wow".split()
DISASTER = ["flood", "wildfire", "earthquake", "evacuation"]
OTHER = ["screaming", "ablaze", "panic", "crush"]  # words used both ways in tweets


def _tweets(root: Path, films: bool = False) -> Path:
    """Tweets whose keyword decides the label half the time; ``films``: a ``film`` column whose
    test values never occur in training (as in a split by film)."""
    rng = random.Random(0)
    rows = []
    for i in range(400):
        real = i % 2
        keyword = rng.choice(DISASTER if real else OTHER) if rng.random() < 0.8 else None
        text = " ".join(rng.choice(WORDS) for _ in range(8)) + f" #{rng.choice(OTHER)}"
        rows.append(
            {
                "id": i,
                "keyword": keyword,
                "location": rng.choice(["Lagos", "Paris", None]),
                "film": f"film_{i // 4}",
                "text": text,
                "target": real,
            }
        )
    frame = pd.DataFrame(rows)
    if not films:
        frame = frame.drop(columns="film")
    inp = root / "input"
    inp.mkdir(parents=True)
    frame.iloc[:300].to_csv(inp / "train.csv", index=False)
    frame.iloc[300:].drop(columns="target").to_csv(inp / "test.csv", index=False)
    frame.iloc[300:][["id", "target"]].assign(target=0).to_csv(
        inp / "sample_submission.csv", index=False
    )
    (root / "description.md").write_text(
        "# Disaster tweets\nPredict whether a tweet is about a real disaster.\n\nMetric: F1\n"
    )
    return root


def test_recurring_columns_join_the_text_as_tagged_words(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    task = load_task(_tweets(tmp_path / "t"))
    layout = inspect_task(task)
    assert (task.modality, layout.text_col) == ("text", "text")
    assert layout.text_context_cols == ("keyword", "location")
    policy = OfflinePolicy(task, RunConfig())
    nb = policy.init_solution(policy.retrieve(1)[0])
    code = "\n".join(b.source for role in ("setup", "load") for b in nb.blocks_by_role(role))
    monkeypatch.chdir(task.root)
    scope: dict = {}
    exec(compile(code, "notebook", "exec"), scope)  # noqa: S102 - our own rendered template
    X, X_test = scope["X"], scope["X_test"]
    train = pd.read_csv(task.input_dir / "train.csv")
    both = train.index[train["keyword"].notna() & train["location"].notna()][0]
    kw, place = train["keyword"][both], train["location"][both].lower()
    assert X.iloc[both] == f"{train['text'][both]} keyword_{kw} location_{place}"
    blank = train.index[train["keyword"].isna() & train["location"].isna()][0]
    assert X.iloc[blank] == train["text"][blank]  # nothing added for a missing value
    assert len(X_test) == 100 and X_test.str.contains("keyword_").any()


def test_a_column_whose_test_values_are_new_stays_out(tmp_path: Path) -> None:
    task = load_task(_tweets(tmp_path / "t", films=True))
    assert inspect_task(task).text_context_cols == ("keyword", "location")  # not "film"


def test_a_text_task_without_other_columns_reads_its_text_as_before(tmp_path: Path) -> None:
    root = _tweets(tmp_path / "t")
    for name in ("train.csv", "test.csv"):
        path = root / "input" / name
        pd.read_csv(path).drop(columns=["keyword", "location"]).to_csv(path, index=False)
    task = load_task(root)
    assert inspect_task(task).text_context_cols == ()
    policy = OfflinePolicy(task, RunConfig())
    load = policy.init_solution(policy.retrieve(1)[0]).blocks_by_role("load")[0].source
    assert 'X = train_df[TEXT].fillna("").astype(str)' in load and "CONTEXT" not in load
