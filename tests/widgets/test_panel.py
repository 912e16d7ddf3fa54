"""RunPanel replaying a recorded events.jsonl: every picture shows what the events say."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from mlestar_jupyter.agent.changes import CHANGE_KINDS as PATH_CHANGE_KINDS
from mlestar_jupyter.journal import EVENT_TYPES, Event, RunJournal, read_events
from mlestar_jupyter.widgets import RunPanel, show_run
from mlestar_jupyter.widgets.progress import CHANGE_KINDS

EVENTS = Path(__file__).parents[1] / "files" / "widgets_events.jsonl"


@pytest.fixture
def events() -> list[Event]:
    return read_events(EVENTS)


@pytest.fixture
def panel(tmp_path: Path) -> RunPanel:
    return RunPanel(tmp_path / "run")


def upto(events: list[Event], type_: str, nth: int = 1) -> list[Event]:
    """Events up to and including the ``nth`` event of ``type_``."""
    seen = 0
    for i, e in enumerate(events):
        seen += e.type == type_
        if seen == nth:
            return events[: i + 1]
    raise AssertionError(f"no {nth}th {type_}")


def test_fixture_covers_every_event_type(events: list[Event]) -> None:
    assert {e.type for e in events} == set(EVENT_TYPES)
    assert [e.seq for e in events] == list(range(len(events)))


def test_full_replay(panel: RunPanel, events: list[Event]) -> None:
    for e in events:
        panel.feed(e)
    assert panel.phase.phase == "done" and panel.phase.status == "done"
    assert panel.phase.best == pytest.approx(0.99)
    assert (panel.phase.candidates, panel.phase.failed, panel.phase.llm_calls) == (8, 1, 2)
    assert "[done]" in panel.phase.html.value and "roc_auc 0.9900" in panel.phase.html.value
    assert "7m 11s / 10m 00s" in panel.phase.text
    assert panel.phase.progress.value == pytest.approx(431 / 600)

    assert panel.ablation.bars == [("no quantile transform", -0.003), ("no class weights", -0.0005)]
    assert panel.ablation.widget.value.count('class="bar"') == 2
    assert "Ablation 2" in panel.ablation.widget.value

    assert panel.trajectory.points == [
        (1, 0.962),
        (2, 0.981),
        (3, 0.984),
        (4, 0.987),
        (6, 0.989),
        (7, 0.988),
        (8, 0.99),
    ]
    assert [p[0] for p in panel.trajectory.best_line] == [1, 2, 3, 4, 6, 8]
    assert panel.trajectory.chart.value.count('class="point"') == 7
    assert panel.trajectory.table.value.count('class="mlestar-cand"') == 8
    assert "MemoryError" in panel.trajectory.table.value

    assert [r["r"] for r in panel.ensemble.rows] == [0, 1]
    assert panel.ensemble.widget.value.count('class="mlestar-ens"') == 2
    assert "✔ chosen" in panel.ensemble.widget.value and "(n8)" in panel.ensemble.widget.value

    assert len(panel.tree.nodes) == 8 and panel.tree.best == "n8" and panel.tree.chosen == "n8"
    kids = panel.tree.children()
    assert [n.node_id for n in kids[None]] == ["n1", "n2"]
    assert [n.node_id for n in kids["n6"]] == ["n7", "n8"]
    assert panel.tree.widget.value.count('class="mlestar-node"') == 8

    assert panel.proposals.pending == ["p2"]
    assert panel.proposals.boxes["p1"].decision == "accept"
    assert (
        panel.proposals.boxes["p1"].accept.disabled
        and not panel.proposals.boxes["p2"].accept.disabled
    )
    assert len(panel.activity.entries) == 13  # with the validation split and held-out rows
    assert "KeyError" in panel.activity.widget.value
    assert "held-out score: roc_auc 0.9712 on the 114 rows" in panel.activity.widget.value
    assert panel.controls.stop.disabled and panel.controls.pause.disabled  # finished


def test_midway_shows_the_current_step(panel: RunPanel, events: list[Event]) -> None:
    panel.feed_many(upto(events, "plan"))
    assert panel.phase.phase == "refine" and panel.phase.step == "t=0 k=0 on b3"
    assert (
        "QuantileTransformer" in panel.plan.widget.value
        and "Refining block b3" in panel.plan.widget.value
    )
    assert [name for name, _ in panel.ablation.bars] == [
        "no feature scaling",
        "no class weights",
        "no LightGBM in blend",
    ]
    assert panel.ablation.widget.value.count('class="bar"') == 3
    assert panel.ensemble.rows == [] and "No ensemble yet" in panel.ensemble.widget.value
    assert panel.phase.status == "running" and not panel.controls.stop.disabled


def test_minimize_metric_picks_the_lowest(panel: RunPanel) -> None:
    panel.feed(
        {
            "seq": 0,
            "key": "s",
            "type": "run_started",
            "time": 0,
            "data": {"task": {"metric_name": "rmse", "direction": "minimize"}, "config": {}},
        }
    )
    for i, s in enumerate((3.0, 2.0, 2.5, 1.5)):
        panel.feed(
            {
                "seq": i + 1,
                "key": f"c{i}",
                "type": "candidate",
                "time": i + 1,
                "data": {"node_id": f"n{i}", "parent_id": None, "score": s, "ok": True},
            }
        )
    assert panel.phase.best == 1.5 and panel.tree.best == "n3"
    assert [p[0] for p in panel.trajectory.best_line] == [1, 2, 4]
    assert "no limit" in panel.phase.text and "best rmse 1.5000" in panel.phase.text


def test_a_tie_for_best_marks_the_candidate_the_run_picked(panel: RunPanel) -> None:
    """The ensemble scored as well as the single solution before it and was picked: the tree
    put ★ on the single one and ✔ on the ensemble, two marks for what the run submitted."""
    rows = [("init-0", 0.9, "init"), ("ref-1", 0.95, "refine"), ("ens-r0", 0.95, "ensemble")]
    for i, (nid, score, phase) in enumerate(rows):
        panel.feed(
            {
                "seq": i,
                "key": f"c{i}",
                "type": "candidate",
                "time": i,
                "data": {"node_id": nid, "phase": phase, "score": score, "ok": True},
            }
        )
    assert panel.tree.best == "ref-1"  # no pick yet: the first of the tie
    panel.feed(
        {"seq": 9, "key": "p", "type": "ensemble_pick", "time": 9, "data": {"chosen": "ens-r0"}}
    )
    assert panel.tree.best == "ens-r0" == panel.tree.chosen


def test_buttons_write_control_json(tmp_path: Path, events: list[Event]) -> None:
    panel = RunPanel(tmp_path / "run")
    panel.feed_many(upto(events, "phase", 3))
    journal = RunJournal(tmp_path / "run")
    panel.controls.pause.value = True
    assert journal.control() == {"pause": True}
    assert panel.controls.pause.description == "Resume"
    panel.controls.pause.value = False
    assert journal.control() == {"pause": False}
    panel.controls.stop.click()
    assert journal.control() == {"pause": False, "stop": True}
    assert panel.controls.stop.disabled and "stopping" in panel.controls.status.value
    # a panel reopened on the folder shows the state on disk
    journal.set_control(pause=True, stop=False)
    assert RunPanel(tmp_path / "run").controls.pause.value is True


def test_unsafe_text_is_escaped(panel: RunPanel) -> None:
    panel.feed(
        {
            "seq": 0,
            "key": "a",
            "type": "ablation",
            "time": 0,
            "data": {"results": [{"name": "<script>x</script>", "delta": 0.1}], "summary": "<b>"},
        }
    )
    assert (
        "<script>" not in panel.ablation.widget.value
        and "&lt;script&gt;" in panel.ablation.widget.value
    )


def test_a_malformed_event_is_skipped(panel: RunPanel, events: list[Event]) -> None:
    panel.feed({"seq": 0, "key": "bad", "type": "models", "time": 0, "data": {"cards": 5}})
    panel.feed_many(events)
    assert (
        panel.phase.phase == "done" and len(panel.activity.entries) == 13
    )  # with the validation split and held-out rows


def test_replay_and_follow_from_disk(tmp_path: Path, events: list[Event]) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    path = run_dir / "events.jsonl"
    lines = EVENTS.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:10]) + lines[10][:15])  # a torn line, as after a kill
    panel = RunPanel(run_dir)
    assert panel.replay() == 10
    panel.start(poll=0.02)

    def writer() -> None:
        with open(path, "a") as fh:
            fh.write(lines[10][15:])
            for line in lines[11:]:
                fh.write(line)
                fh.flush()
                time.sleep(0.005)

    t = threading.Thread(target=writer)
    t.start()
    t.join()
    deadline = time.monotonic() + 10
    while panel.following and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not panel.following and panel.finished and panel.seen == len(events)
    twin = RunPanel(tmp_path / "twin")
    twin.feed_many(events)
    for a, b in (
        (panel.tree.widget, twin.tree.widget),
        (panel.ensemble.widget, twin.ensemble.widget),
        (panel.phase.html, twin.phase.html),
        (panel.trajectory.chart, twin.trajectory.chart),
        (panel.ablation.widget, twin.ablation.widget),
        (panel.activity.widget, twin.activity.widget),
    ):
        assert a.value == b.value


def test_show_run_displays_a_following_panel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "events.jsonl").write_text("".join(EVENTS.read_text().splitlines(keepends=True)[:5]))
    panel = show_run(run_dir, poll=0.02)
    try:
        assert panel.seen == 5 and panel.following
        assert "RunPanel" in capsys.readouterr().out  # displayed (plain repr outside a kernel)
        with open(run_dir / "events.jsonl", "a") as fh:
            fh.write(
                json.dumps(
                    {"seq": 5, "key": "x", "type": "phase", "time": 1.0, "data": {"phase": "merge"}}
                )
                + "\n"
            )
        deadline = time.monotonic() + 5
        while panel.phase.phase != "merge" and time.monotonic() < deadline:
            time.sleep(0.02)
        assert panel.phase.phase == "merge"
    finally:
        panel.stop_following()
    assert not panel.following


def test_html_report_has_every_picture_and_ignores_ablations_for_best(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import shutil

    from mlestar_jupyter.cli import main

    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(EVENTS, run / "events.jsonl")
    (run / "run.json").write_text("{}")
    assert main(["show", str(run), "--html", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    for title in ("Score trajectory", "Ablation results", "Ensemble plans", "Solution tree"):
        assert f"<h2>{title}</h2>" in page
    assert "<svg" in page and 'class="mlestar-node"' in page


def test_ablation_variants_are_not_counted_as_the_best_solution(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from mlestar_jupyter.widgets import RunPanel

    panel = RunPanel(tmp_path)
    evs = [
        {
            "seq": 0,
            "key": "a",
            "type": "candidate",
            "data": {"node_id": "init-m1", "phase": "init", "score": 0.90, "ok": True},
        },
        {
            "seq": 1,
            "key": "b",
            "type": "candidate",
            "data": {
                "node_id": "p0-t0-abl1",
                "parent_id": "init-m1",
                "phase": "ablation",
                "score": 0.95,
                "ok": True,
            },
        },
        {
            "seq": 2,
            "key": "c",
            "type": "candidate",
            "data": {
                "node_id": "p0-t0k0",
                "parent_id": "init-m1",
                "phase": "refine",
                "score": 0.91,
                "ok": True,
            },
        },
    ]
    panel.feed_many(evs)
    assert panel.trajectory.best_line[-1][1] == 0.91
    assert panel.tree.best == "p0-t0k0"


def test_ensemble_panel_says_when_a_single_solution_is_kept(panel: RunPanel) -> None:
    pick = {
        "chosen": "p1-final",
        "label": "refine: C=0.1",
        "score": 0.97,
        "kind": "single",
        "best_ensemble": "ens-r0",
        "best_ensemble_score": 0.95,
        "best_single": "p1-final",
        "best_single_score": 0.97,
        "reason": "the single solution p1-final (0.97) scores better than the best ensemble "
        "ens-r0 (0.95): the single solution is kept",
    }
    plan = {"r": 0, "plan": "average the two", "node_id": "ens-r0", "score": 0.95}
    panel.feed_many([Event(0, "p", "ensemble_plan", plan), Event(1, "k", "ensemble_pick", pick)])
    html = panel.ensemble.widget.value
    assert "A single solution is kept instead of an ensemble" in html
    assert "ens-r0 (0.95)" in html and "✔ chosen" not in html


def test_activity_log_says_how_the_notebook_was_read_and_the_validation_split(
    panel: RunPanel,
) -> None:
    def feed(seq: int, type_: str, **data: object) -> str:
        panel.feed({"seq": seq, "key": f"k{seq}", "type": type_, "time": 0, "data": data})
        assert panel.activity.entries[-1][0] == type_
        return panel.activity.entries[-1][1]

    roles = {"b1": "load", "b2": "model", "b3": "train", "b4": "model"}
    assert feed(
        0, "understanding", understood=True, roles=roles, mixed=["b2"], target="y", added_block="b5"
    ) == (
        "read your notebook: 4 cell(s) (1 load, 2 model, 1 train), target y; "
        "1 mixed cell(s) (refined part by part); added validation cell b5"
    )
    assert (
        feed(1, "understanding", understood=False, reason="no model fit\nat all")
        == "your notebook was not understood: no model fit"
    )
    changes = [
        ["b1", "/kaggle/input/bc/train.csv", "input/train.csv", "path"],
        ["b1", "../input/test.csv", "input/test.csv"],  # a journal from before the kind
        ["b2", "!pip install lightgbm", "pass  # ...", "install"],
        ["b2", "import seaborn as sns", "try: ...", "module"],
    ]
    assert feed(1, "understanding", understood=True, roles=roles, data_paths=changes).endswith(
        "; changed for this machine: 2 data path(s) pointed at ./input, 1 install line(s) not "
        "run, 1 import(s) of missing plot packages stood in for"
    )
    split = dict(file="val_index.csv", table="train.csv", rows=114, n_labelled=569, seed=0)
    assert feed(2, "validation_split", **split) == (
        "validation split: 114 of 569 labelled rows of train.csv (seed 0), scored by the harness"
    )
    assert feed(3, "validation_split", file=None, rows=0).startswith("no validation split")
    assert feed(4, "validation_split", **split, kfold=True).endswith(
        "scored by the harness (or k-fold on every labelled row)"
    )
    assert "read your notebook" in panel.activity.widget.value


def test_activity_log_counts_every_kind_of_change_to_the_users_notebook(panel: RunPanel) -> None:
    """A Colab notebook's muted mount, its shell lines, Kaggle's scratch folder and the user's
    own module were changed for the run but the log said nothing of them (it counted paths,
    installs, guarded imports and fold lines only): every kind a ``PathChange`` can have is
    said, and a kind from a newer run is still counted."""
    said = dict(CHANGE_KINDS)
    assert set(said) == set(PATH_CHANGE_KINDS)  # every kind of ``PathChange.kind``
    changes = [["b1", "old", "new", kind] for kind in PATH_CHANGE_KINDS]
    changes.append(["b2", "old", "new", "a-kind-of-tomorrow"])
    data = {"understood": True, "roles": {"b1": "load"}, "data_paths": changes}
    panel.feed({"seq": 0, "key": "u", "type": "understanding", "time": 0, "data": data})
    line = panel.activity.entries[-1][1]
    assert all(f"1 {what}" in line for what in said.values())
    assert line.endswith(", 1 other change(s)")
    assert "1 line(s) only Colab runs not run" in line and "1 shell line(s)" in line
