"""A dataset downloaded from the Hugging Face Hub: ``README.md`` is its dataset card (YAML front
matter listing the features, one of them a ``class_label``), the splits are numbered parquet
parts under ``data/``, and the test split is labelled.  The folder was refused ("names no
metric"; with a metric line added, "names no 'Target: <column>' line") although the card says
what is predicted."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.dataset_card import card_description, front_matter

CARD = """---
license: apache-2.0
task_categories:
- text-classification
language:
- en
pretty_name: Tiny Reviews
dataset_info:
  features:
  - name: text
    dtype: string
  - name: label
    dtype:
      class_label:
        names:
          '0': neg
          '1': pos
  splits:
  - name: train
    num_bytes: 51234
    num_examples: 600
  - name: test
    num_examples: 200
configs:
- config_name: default
  data_files:
  - split: train
    path: data/train-*
  - split: test
    path: data/test-*
---

# Dataset Card for Tiny Reviews

Short film reviews, each labelled with its sentiment.

## Dataset Structure

- `text`: the review
- `label`: 0 (neg) or 1 (pos)
"""


def _reviews(n: int, rng: np.random.Generator) -> pd.DataFrame:
    good = "great wonderful moving superb charming".split()
    bad = "dull boring awful clumsy tedious".split()
    filler = "the film plot cast story scenes acting music it was".split()
    y = rng.integers(0, 2, n)
    noisy = rng.random(n) < 0.15  # some reviews say the other thing
    texts = [
        " ".join(rng.choice((good if (c ^ f) else bad) + filler, 10))
        for c, f in zip(y, noisy, strict=True)
    ]
    return pd.DataFrame({"text": texts, "label": y})


def _hub_download(root: Path) -> Path:
    rng = np.random.default_rng(0)
    (root / "data").mkdir(parents=True)
    _reviews(600, rng).to_parquet(root / "data" / "train-00000-of-00001.parquet")
    _reviews(200, rng).to_parquet(root / "data" / "test-00000-of-00001.parquet")
    (root / "README.md").write_text(CARD)
    (root / ".gitattributes").write_text("*.parquet filter=lfs diff=lfs merge=lfs -text\n")
    return root


def test_the_card_names_the_target_and_the_metric(tmp_path: Path) -> None:
    task = load_task(_hub_download(tmp_path / "tiny_reviews"))
    assert (task.target_cols, task.metric_name, task.task_type, task.modality) == (
        ("label",),
        "accuracy",
        "classification",
        "text",
    )
    assert task.goal.startswith("Short film reviews") and "license" not in task.description
    assert "0 = neg, 1 = pos" in task.description
    assert any("'label', is the target" in n and "accuracy" in n for n in task.notices)


def test_a_metric_word_in_the_front_matter_is_no_metric_the_text_names(tmp_path: Path) -> None:
    """A card tagged ``f1-score`` whose text names no metric: accuracy, as for any card (it was
    refused, "names no metric": the tag counted as naming one, then the text without the front
    matter named none)."""
    root = _hub_download(tmp_path / "tiny_reviews")
    tagged = CARD.replace("- text-classification\n", "- text-classification\ntags:\n- f1-score\n")
    (root / "README.md").write_text(tagged)
    task = load_task(root)
    assert task.metric_name == "accuracy"
    assert any("no metric is named: accuracy" in n for n in task.notices)


def test_what_the_text_says_wins_over_the_card(tmp_path: Path) -> None:
    text, said = card_description(
        CARD + "\nMetric: ROC AUC\n", names_target=False, names_metric=True
    )
    assert "Target: label" in text and "Metric: accuracy" not in text and "metric" not in said
    assert front_matter("# no card\n---\nx: 1\n---\n") == (None, "# no card\n---\nx: 1\n---\n")
    assert front_matter("---\n: [unclosed\n---\nbody")[0] is None


def test_a_run_on_the_download_is_graded_on_the_labelled_test_split(
    tmp_path: Path,
    short_run,  # type: ignore[no-untyped-def]
) -> None:
    root = _hub_download(tmp_path / "tiny_reviews")
    out = short_run(root)
    assert out.final.ok and out.final.submission is not None, out.stop_reason
    sub = pd.read_csv(out.final.submission)
    assert list(sub.columns) == ["label"] and len(sub) == 200
    from mlestar_jupyter.journal import summarise_run

    held = summarise_run(tmp_path / "run").heldout
    assert held is not None and held.data["rows"] == 200
    assert held.data["score"] == pytest.approx(0.85, abs=0.1)  # 15 % of the reviews mislead


def test_a_download_with_only_a_train_split_is_a_dataset_whose_goal_is_the_cards_text(
    tmp_path: Path,
) -> None:
    """No test split: 20 % of the rows are held out; the goal was the card's YAML."""
    from mlestar_jupyter.importer.dataset_task import find_dataset, holdout_task

    root = _hub_download(tmp_path / "tiny_reviews")
    (root / "data" / "test-00000-of-00001.parquet").unlink()
    dataset = find_dataset(root)
    assert dataset is not None
    held = holdout_task(dataset, tmp_path / "out" / "task")
    task = load_task(held.root)
    assert task.target_cols == ("label",) and task.goal.startswith("Short film reviews")
    assert "dataset_info" not in task.description and "0 = neg, 1 = pos" in task.description
