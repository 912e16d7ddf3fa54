"""Grading: perfect, wrong and invalid submissions, each invalid one with its exact reason."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mlestar_jupyter.evaluator import grade_submission
from mlestar_jupyter.evaluator.leaderboard import Leaderboard

from ._util import answers_of, sample_of


def _write(df: pd.DataFrame, path: Path) -> Path:
    df.to_csv(path, index=False)
    return path


def test_perfect_auc_submission(tiny_pack: Path, tmp_path: Path) -> None:
    root = tiny_pack / "tiny-breast-cancer"
    ans = answers_of(root)
    sub = _write(ans.assign(target=ans.target.astype(float)), tmp_path / "s.csv")
    r = grade_submission(root, sub)
    assert r.made_submission and r.valid_submission and r.invalid_reason is None
    assert r.score == pytest.approx(1.0)
    assert r.rank == 1 and r.medal == "gold" and r.rank_pct == pytest.approx(1 / r.participants)
    assert r.difficulty is not None and r.difficulty_level in ("easy", "medium", "hard")


def test_inverted_auc_submission_ranks_last(tiny_pack: Path, tmp_path: Path) -> None:
    root = tiny_pack / "tiny-breast-cancer"
    ans = answers_of(root)
    sub = _write(ans.assign(target=1 - ans.target.astype(float)), tmp_path / "s.csv")
    r = grade_submission(root, sub)
    assert r.valid_submission and r.score == pytest.approx(0.0)
    assert (
        r.rank == r.participants and r.beats_pct == 0.0 and r.medal == "none" and not r.above_median
    )


def test_rows_in_any_order_score_the_same(tiny_pack: Path, tmp_path: Path) -> None:
    root = tiny_pack / "tiny-diabetes"
    ans = answers_of(root)
    rng = np.random.default_rng(1)
    noisy = ans.assign(progression=ans.progression.astype(float) + rng.normal(0, 10, len(ans)))
    a = grade_submission(root, _write(noisy, tmp_path / "a.csv"))
    b = grade_submission(root, _write(noisy.sample(frac=1, random_state=3), tmp_path / "b.csv"))
    assert a.valid_submission and a.score == pytest.approx(b.score)
    assert a.score == pytest.approx(
        np.sqrt(np.mean((noisy.progression.astype(float) - ans.progression.astype(float)) ** 2))
    )


def test_perfect_regression_and_log_loss_columns(tiny_pack: Path, tmp_path: Path) -> None:
    d = tiny_pack / "tiny-diabetes"
    assert grade_submission(d, _write(answers_of(d), tmp_path / "d.csv")).score == pytest.approx(
        0.0
    )
    w = tiny_pack / "tiny-wine"
    ans = answers_of(w)
    onehot = pd.DataFrame(
        {
            "id": ans.id,
            **{c: (ans.cultivar == c).astype(float) for c in ("class_0", "class_1", "class_2")},
        }
    )
    r = grade_submission(w, _write(onehot, tmp_path / "w.csv"))
    assert r.valid_submission and r.score == pytest.approx(0.0, abs=1e-9) and r.rank == 1
    uniform = onehot.assign(class_0=1 / 3, class_1=1 / 3, class_2=1 / 3)
    assert grade_submission(w, _write(uniform, tmp_path / "u.csv")).score == pytest.approx(
        np.log(3)
    )


def test_wrong_labels_score_low_but_valid(tiny_pack: Path, tmp_path: Path) -> None:
    root = tiny_pack / "tiny-digits"
    ans = answers_of(root)
    shifted = ans.assign(label=((ans.label.astype(int) + 1) % 10).astype(str))
    r = grade_submission(root, _write(shifted, tmp_path / "s.csv"))
    assert r.valid_submission and r.score == pytest.approx(0.0)
    perfect = grade_submission(root, _write(ans, tmp_path / "p.csv"))
    assert perfect.score == pytest.approx(1.0)


def _sample(root: Path) -> pd.DataFrame:
    return sample_of(root).assign(target="0.5")


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda s: s.iloc[12:], "missing 12 ids, first: {ids[0]}"),
        (
            lambda s: s.assign(target=[None] * 3 + ["0.5"] * (len(s) - 3)),
            "column 'target' has 3 missing values, first at id {ids[0]}",
        ),
        (
            lambda s: s.rename(columns={"target": "prediction"}),
            "missing columns: target; unexpected columns: prediction (expected id, target)",
        ),
        (
            lambda s: pd.concat(
                [s, pd.DataFrame({"id": ["99999", "99998"], "target": ["0.1", "0.2"]})]
            ),
            "has {n2} rows, expected {n}; 2 unexpected ids, first: 99999",
        ),
        (
            lambda s: pd.concat([s, s.iloc[:4]]),
            "has {n4} rows, expected {n}; 4 duplicate ids, first: {ids[0]}",
        ),
        (
            lambda s: s.assign(target=["high"] + ["0.5"] * (len(s) - 1)),
            "column 'target' must be numeric: 1 non-numeric values, first: 'high' at id {ids[0]}",
        ),
        (lambda s: s.assign(extra=1), "unexpected columns: extra (expected id, target)"),
        (lambda s: s.iloc[:0], "has no rows, expected {n}"),
    ],
    ids=[
        "missing-ids",
        "nan",
        "wrong-column",
        "extra-rows",
        "duplicates",
        "non-numeric",
        "extra-column",
        "empty",
    ],
)
def test_invalid_submissions_say_exactly_why(
    tiny_pack: Path, tmp_path: Path, mutate, reason: str
) -> None:  # noqa: ANN001
    root = tiny_pack / "tiny-breast-cancer"
    s = _sample(root)
    ids = list(s.id)
    r = grade_submission(root, _write(mutate(s), tmp_path / "s.csv"))
    assert r.made_submission and not r.valid_submission and r.score is None and r.rank is None
    assert r.invalid_reason == reason.format(ids=ids, n=len(s), n2=len(s) + 2, n4=len(s) + 4)


def test_labels_outside_the_label_set(tiny_pack: Path, tmp_path: Path) -> None:
    root = tiny_pack / "tiny-digits"
    s = sample_of(root)
    s.loc[5, "label"] = "seven"
    r = grade_submission(root, _write(s, tmp_path / "s.csv"))
    assert (
        r.invalid_reason
        == f"column 'label' has 1 values that are not classes of the training target, first: 'seven' at id {s.id[5]}; expected one of 0, 1, 2, 3, 4, 5, 6, 7, 8, 9"
    )


def test_integral_floats_count_as_labels(tiny_pack: Path, tmp_path: Path) -> None:
    root = tiny_pack / "tiny-digits"
    ans = answers_of(root)
    r = grade_submission(
        root, _write(ans.assign(label=ans.label.astype(float)), tmp_path / "s.csv")
    )
    assert r.valid_submission and r.score == pytest.approx(1.0)


def test_probabilities_outside_unit_interval_for_log_loss(tiny_pack: Path, tmp_path: Path) -> None:
    root = tiny_pack / "tiny-wine"
    s = sample_of(root)
    s.loc[0, "class_1"] = "1.7"
    r = grade_submission(root, _write(s, tmp_path / "s.csv"))
    assert (
        r.invalid_reason
        == f"column 'class_1' holds probabilities (log_loss) but has 1 values outside [0, 1], first: '1.7' at id {s.id[0]}; expected a probability from predict_proba"
    )


def test_no_file_and_unreadable_file(tiny_pack: Path, tmp_path: Path) -> None:
    root = tiny_pack / "tiny-diabetes"
    r = grade_submission(root, tmp_path / "nothere.csv")
    assert (
        not r.made_submission
        and not r.valid_submission
        and r.invalid_reason == f"no submission file at {tmp_path / 'nothere.csv'}"
    )
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    r = grade_submission(root, empty)
    assert (
        r.made_submission
        and not r.valid_submission
        and r.invalid_reason.startswith("cannot be read as CSV")
    )


def test_given_leaderboard_overrides_the_file(tiny_pack: Path, tmp_path: Path) -> None:
    root = tiny_pack / "tiny-diabetes"
    ans = answers_of(root)
    sub = _write(
        ans.assign(progression=ans.progression.astype(float) + 50), tmp_path / "s.csv"
    )  # RMSE exactly 50
    board = Leaderboard.of([10, 20, 30, 40, 60, 70, 80, 90, 100, 110], "minimize")
    r = grade_submission(root, sub, leaderboard=board)
    assert r.score == pytest.approx(50.0)
    assert (r.rank, r.participants, r.rank_pct, r.beats_pct) == (
        5,
        11,
        pytest.approx(5 / 11),
        pytest.approx(60.0),
    )
    assert r.medal == "none" and r.above_median is True  # bronze needs <= 40; the median is 65


def test_stated_participant_count_puts_difficulty_on_the_papers_scale(task_copy) -> None:  # type: ignore[no-untyped-def]
    import json

    root = task_copy("tiny-breast-cancer")
    plain = grade_submission(root, None)
    assert plain.difficulty_scale == "board" and plain.difficulty_participants == 17
    spec = json.loads((root / "task.json").read_text())
    spec["leaderboard_participants"] = 3000
    (root / "task.json").write_text(json.dumps(spec))
    r = grade_submission(root, None)
    assert (r.difficulty_scale, r.difficulty_participants) == ("stated", 3000)
    shift = 0.1 * (np.log10(3001) - np.log10(18))  # task.json rounds to 4 places
    assert r.difficulty == pytest.approx(plain.difficulty + shift, abs=1e-4)


def test_a_multi_label_submission_is_graded_on_every_label_column(tmp_path: Path) -> None:
    """A 0/1 column per label graded by the mean column-wise ROC AUC (hunt, session 24): the
    grader scored the first label's column alone, so a submission right on that one and
    inverted on the others graded 1.0."""
    from sklearn.metrics import roc_auc_score

    root = tmp_path / "tasks" / "tags"
    (root / "input").mkdir(parents=True)
    rng = np.random.default_rng(0)
    n = 120
    labels = pd.DataFrame({c: rng.integers(0, 2, n) for c in ("label_a", "label_b", "label_c")})
    frame = labels.assign(id=range(n), x=rng.normal(size=n))
    frame.iloc[:80].to_csv(root / "input" / "train.csv", index=False)
    frame.iloc[80:][["id", "x"]].to_csv(root / "input" / "test.csv", index=False)
    test_ids = frame.iloc[80:]["id"]
    sample = pd.DataFrame({"id": test_ids, "label_a": 0.5, "label_b": 0.5, "label_c": 0.5})
    sample.to_csv(root / "input" / "sample_submission.csv", index=False)
    (root / "description.md").write_text(
        "# Tags\n\nEach row may carry several labels.\n\n## Evaluation\nMean column-wise ROC AUC\n"
    )
    answers = frame.iloc[80:][["id", "label_a", "label_b", "label_c"]]
    (tmp_path / "tasks" / "answers" / "tags").mkdir(parents=True)
    answers.to_csv(tmp_path / "tasks" / "answers" / "tags" / "answers.csv", index=False)

    noisy = answers.assign(
        label_a=answers.label_a.astype(float),
        label_b=np.clip(answers.label_b + rng.normal(0, 0.8, len(answers)), 0, 1),
        label_c=1 - answers.label_c,
    )
    r = grade_submission(root, _write(noisy, tmp_path / "s.csv"))
    want = np.mean([roc_auc_score(answers[c], noisy[c]) for c in ("label_a", "label_b", "label_c")])
    assert r.valid_submission and r.score == pytest.approx(want)
    assert 0.3 < r.score < 0.8  # not the first column's 1.0


@pytest.mark.parametrize("order", [("churned", "stayed"), ("stayed", "churned")])
def test_average_precision_of_probability_columns_scores_the_positive_class(
    tmp_path: Path, order: tuple[str, str]
) -> None:
    """One probability column per class, the task naming "churned" positive: average precision
    is graded on churned's column wherever the sample puts it (was: the second column's, so a
    sample submission listing churned first graded the AP of "stayed")."""
    from sklearn.metrics import average_precision_score

    root = tmp_path / "tasks" / "churn"
    (root / "input").mkdir(parents=True)
    rng = np.random.default_rng(0)
    n = 200
    status = np.where(rng.uniform(size=n) < 0.25, "churned", "stayed")
    frame = pd.DataFrame({"customer": range(n), "x": rng.normal(size=n), "status": status})
    frame.iloc[:100].to_csv(root / "input" / "train.csv", index=False)
    frame.iloc[100:][["customer", "x"]].to_csv(root / "input" / "test.csv", index=False)
    test = frame.iloc[100:]
    sample = pd.DataFrame({"customer": test.customer, order[0]: 0.5, order[1]: 0.5})
    sample.to_csv(root / "input" / "sample_submission.csv", index=False)
    spec = {"metric": "average_precision", "target": "status", "positive_label": "churned"}
    (root / "task.json").write_text(json.dumps({"name": "churn", "id_column": "customer", **spec}))
    (tmp_path / "tasks" / "answers" / "churn").mkdir(parents=True)
    test[["customer", "status"]].to_csv(
        tmp_path / "tasks" / "answers" / "churn" / "answers.csv", index=False
    )
    churned = np.clip((test.status == "churned") * 0.3 + rng.uniform(0, 0.7, len(test)), 0, 1)
    sub = pd.DataFrame({"customer": test.customer, "churned": churned, "stayed": 1 - churned})
    r = grade_submission(root, _write(sub[["customer", *order]], tmp_path / "s.csv"))
    want = average_precision_score(test.status == "churned", churned)
    assert r.valid_submission and r.score == pytest.approx(want)
