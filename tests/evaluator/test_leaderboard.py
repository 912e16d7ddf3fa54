"""Rank percentile, 'beats X%', MLE-bench medals, weighted rank, and TAM-Bench difficulty."""

from __future__ import annotations

import math

import pytest

from mlestar_jupyter.evaluator.difficulty import (
    difficulty_score,
    level_of,
    stated_participants,
    task_difficulty,
)
from mlestar_jupyter.evaluator.errors import LeaderboardError
from mlestar_jupyter.evaluator.leaderboard import (
    Leaderboard,
    load_leaderboard,
    medal_positions,
    weighted_rank,
)

BOARD20 = Leaderboard.of(range(1, 21), "maximize")  # 20 teams scoring 1..20


def test_board_is_sorted_best_first() -> None:
    assert BOARD20.scores[:3] == (20, 19, 18)
    assert Leaderboard.of([3, 1, 2], "minimize").scores == (1, 2, 3)
    assert Leaderboard.of([1, float("nan"), 2], "maximize").scores == (2, 1)


@pytest.mark.parametrize(
    ("score", "rank", "beats", "medal"),
    [
        (25, 1, 100.0, "gold"),
        (19, 2, 90.0, "gold"),
        (18.5, 3, 90.0, "silver"),
        (17, 4, 80.0, "silver"),
        (16, 5, 75.0, "bronze"),
        (13, 8, 60.0, "bronze"),
        (12.5, 9, 60.0, "none"),
        (0, 21, 0.0, "none"),
    ],
)
def test_rank_and_medals_on_known_board(score: float, rank: int, beats: float, medal: str) -> None:
    r = BOARD20.rank(score)
    assert (r.rank, r.participants, r.beats_pct, r.medal) == (rank, 21, pytest.approx(beats), medal)
    assert r.rank_pct == pytest.approx(rank / 21)
    # 20 teams: gold at position int(2)=2, silver int(4)=4, bronze int(8)=8
    assert (r.thresholds.gold, r.thresholds.silver, r.thresholds.bronze, r.thresholds.median) == (
        19,
        17,
        13,
        10.5,
    )


def test_lower_is_better_board() -> None:
    board = Leaderboard.of([0.5, 0.1, 0.3, 0.2, 0.4], "minimize")
    r = board.rank(0.15)
    assert (r.rank, r.beats_pct, r.medal, r.above_median) == (
        2,
        80.0,
        "bronze",
        True,
    )  # gold needs 0.1, bronze 0.2
    assert board.rank(0.1).medal == "gold"
    assert board.rank(0.2).medal == "bronze"  # 5 teams: silver position 1, bronze position int(2)=2
    assert board.rank(None).rank is None and board.rank(float("nan")).medal == "none"


@pytest.mark.parametrize(
    ("n", "positions"),
    [
        (5, (1, 1, 2)),
        (20, (2, 4, 8)),
        (150, (10, 30, 60)),
        (500, (11, 50, 100)),
        (2000, (14, 100, 200)),
    ],
)
def test_medal_positions_follow_mle_bench(n: int, positions: tuple[int, int, int]) -> None:
    assert medal_positions(n) == positions


def test_weighted_rank_weighs_modalities_equally() -> None:
    assert weighted_rank([0.1, 0.3, 0.5], ["tabular", "tabular", "image"]) == pytest.approx(
        (0.05 + 0.15 + 0.5) / 2
    )
    assert weighted_rank([None, 0.5], ["tabular", "image"]) == pytest.approx(
        0.75
    )  # no submission = last
    assert weighted_rank([], []) is None


def test_load_leaderboard_accepts_kaggle_columns(tmp_path) -> None:  # noqa: ANN001
    p = tmp_path / "lb.csv"
    p.write_text("teamName,scoreNullable\na,0.9\nb,\nc,0.7\n")
    board = load_leaderboard(p, "maximize")
    assert board.scores == (0.9, 0.7) and board.names == ("a", "c")
    p.write_text("team,points\na,1\n")
    with pytest.raises(LeaderboardError, match="no score column"):
        load_leaderboard(p, "maximize")


# --------------------------------------------------------------------------- difficulty
def test_difficulty_higher_is_better_by_hand() -> None:
    # accuracy (bounded 0..1), board 0.9, 0.8, 0.7, 0.6: mean 0.75, best 0.9, 4 participants
    d = task_difficulty(Leaderboard.of([0.9, 0.8, 0.7, 0.6], "maximize"), "accuracy")
    expected = 0.4 * 0.75 + 0.1 * math.log10(5) + 0.5 * (1 - 0.9)
    assert d.score == pytest.approx(expected, abs=1e-6) and d.level == "easy"
    assert (d.norm_mean, d.norm_best, d.range_min, d.range_max) == (
        pytest.approx(0.75),
        pytest.approx(0.9),
        0.0,
        1.0,
    )


def test_difficulty_lower_is_better_by_hand() -> None:
    # RMSE is unbounded: the range is the board's own, 2..10; mean 6 -> 0.5, best 2 -> 0
    d = task_difficulty(Leaderboard.of([2, 4, 6, 8, 10], "minimize"), "rmse")
    assert d.score == pytest.approx(0.4 * 0.5 + 0.1 * math.log10(6), abs=1e-6)
    # with an explicit range the best term counts NormBest itself, not 1 - NormBest
    e = difficulty_score(mean=6, best=2, participants=5, lo=0, hi=10, higher_is_better=False)
    assert e.score == pytest.approx(0.4 * 0.6 + 0.1 * math.log10(6) + 0.5 * 0.2, abs=1e-6)
    f = difficulty_score(mean=6, best=2, participants=5, lo=0, hi=10, higher_is_better=True)
    assert f.score == pytest.approx(0.4 * 0.6 + 0.1 * math.log10(6) + 0.5 * 0.8, abs=1e-6)


def test_difficulty_levels() -> None:
    assert [level_of(x) for x in (0.2, 0.6, 0.61, 0.85, 0.86)] == [
        "easy",
        "easy",
        "medium",
        "medium",
        "hard",
    ]
    hard = difficulty_score(
        mean=0.9, best=0.9, participants=99999, lo=0, hi=1, higher_is_better=True
    )
    assert hard.score == pytest.approx(0.36 + 0.5 + 0.05, abs=1e-4) and hard.level == "hard"


def test_difficulty_worked_example_on_the_papers_scale() -> None:
    # Eq. 3 worked by hand for an accuracy task (range 0..1) whose board has mean 0.75 and best
    # 0.91, once with a Kaggle-sized field of 1315 teams (the paper's scale) and once on a
    # 17-entry reference ladder:
    #   0.4 * 0.75 = 0.3;  0.5 * (1 - 0.91) = 0.045
    #   0.1 * log10(1316) = 0.311926...  -> D = 0.656926 -> medium
    #   0.1 * log10(18)   = 0.125527...  -> D = 0.470527 -> easy
    board = Leaderboard.of([0.91] + [0.74] * 16, "maximize")  # mean 0.75, best 0.91
    assert board.mean == pytest.approx(0.75)
    kaggle = task_difficulty(board, "accuracy", participants=1315)
    assert kaggle.score == pytest.approx(0.656926, abs=1e-6) and kaggle.level == "medium"
    assert (kaggle.participants, kaggle.board_entries, kaggle.scale) == (1315, 17, "stated")
    ladder = task_difficulty(board, "accuracy")
    assert ladder.score == pytest.approx(0.470527, abs=1e-6) and ladder.level == "easy"
    assert (ladder.participants, ladder.scale) == (17, "board")


def test_stated_participants_reads_task_json_or_says_what_to_write() -> None:
    assert stated_participants({}) is None
    assert stated_participants({"leaderboard_participants": "1,315"}) == 1315
    for bad in (0, "many", True, [3]):
        with pytest.raises(ValueError, match="whole number >= 1"):
            stated_participants({"leaderboard_participants": bad})
