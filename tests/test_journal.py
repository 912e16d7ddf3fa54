"""The run journal: events on disk, dedupe on resume, torn lines, decisions and controls."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlestar_jupyter.journal import JournalError, RunJournal, read_events


def test_events_are_flushed_and_deduplicated_by_key(tmp_path: Path) -> None:
    j = RunJournal.create(tmp_path / "r", {"task_dir": "x"})
    seen = []
    j.subscribe(seen.append)
    j.emit("phase", key="phase/init", phase="init")
    j.emit("candidate", key="cand/a", id="a", score=0.5)
    assert [e.type for e in read_events(tmp_path / "r" / "events.jsonl")] == ["phase", "candidate"]
    j.close()
    # a resumed journal does not write an event it already has
    j2 = RunJournal.open(tmp_path / "r")
    j2.emit("candidate", key="cand/a", id="a", score=0.5)
    j2.emit("candidate", key="cand/b", id="b", score=0.6)
    evs = read_events(tmp_path / "r" / "events.jsonl")
    assert [e.key for e in evs] == ["phase/init", "cand/a", "cand/b"]
    assert [e.seq for e in evs] == [0, 1, 2]
    assert len(seen) == 2


def test_torn_last_line_is_skipped(tmp_path: Path) -> None:
    j = RunJournal.create(tmp_path / "r", {})
    j.emit("phase", key="p", phase="init")
    j.close()
    with open(tmp_path / "r" / "events.jsonl", "a") as fh:
        fh.write('{"seq": 1, "key": "x", "ty')
    assert len(read_events(tmp_path / "r" / "events.jsonl")) == 1


def test_create_refuses_existing_run_and_open_refuses_non_run(tmp_path: Path) -> None:
    j = RunJournal.create(tmp_path / "r", {})
    j.emit("phase", key="p")
    with pytest.raises(JournalError, match="mlestar resume"):
        RunJournal.create(tmp_path / "r", {})
    with pytest.raises(JournalError, match="not a run folder"):
        RunJournal.open(tmp_path / "elsewhere")


def test_decisions_and_controls(tmp_path: Path) -> None:
    j = RunJournal.create(tmp_path / "r", {})
    assert j.decision("p0-t1") is None
    j.record_decision("p0-t1", "reject")
    assert j.decision("p0-t1")["decision"] == "reject"
    with pytest.raises(ValueError):
        j.record_decision("p0-t2", "maybe")
    j.set_control(pause=True)
    j.set_control(stop=True)
    assert j.control() == {"pause": True, "stop": True}


def test_execution_cache(tmp_path: Path) -> None:
    j = RunJournal.create(tmp_path / "r", {})
    assert j.execution_cached("abc") is None
    j.cache_execution("abc", {"ok": True, "score": 0.9})
    assert RunJournal.open(tmp_path / "r").execution_cached("abc") == {"ok": True, "score": 0.9}


# -- typed events (issue 19) --------------------------------------------------------------------
def test_emit_checks_the_event_against_its_model(tmp_path: Path) -> None:
    from mlestar_jupyter.journal import EventSchemaError

    j = RunJournal.create(tmp_path / "r", {})
    with pytest.raises(EventSchemaError, match="unknown event type 'phasee'"):
        j.emit("phasee", phase="init")
    with pytest.raises(EventSchemaError, match="does not name: colour"):
        j.emit("phase", phase="init", colour="red")
    with pytest.raises(EventSchemaError, match="kept"):
        j.emit("improvement", kept="perhaps")
    assert read_events(tmp_path / "r" / "events.jsonl") == []  # nothing half-valid was written


def test_emit_takes_a_model_and_writes_nan_as_null(tmp_path: Path) -> None:
    from mlestar_jupyter.journal import SCHEMA_VERSION
    from mlestar_jupyter.journal.kinds import CandidateEvent, PhaseEvent

    j = RunJournal.create(tmp_path / "r", {})
    j.emit(PhaseEvent(phase="refine", path="p0"), key="phase/p0/refine")
    j.emit("candidate", node_id="n1", score=float("nan"), duration=float("inf"), ok=True)
    j.close()
    text = (tmp_path / "r" / "events.jsonl").read_text()
    assert "NaN" not in text and "Infinity" not in text
    evs = read_events(tmp_path / "r" / "events.jsonl")
    assert evs[0].data == {"phase": "refine", "path": "p0"} and evs[0].key == "phase/p0/refine"
    assert evs[1].data["score"] is None and evs[1].v == SCHEMA_VERSION
    cand = evs[1].payload
    assert isinstance(cand, CandidateEvent) and cand.name == "n1" and cand.score is None


def test_reading_is_lenient_with_older_and_newer_runs(tmp_path: Path) -> None:
    from mlestar_jupyter.journal.kinds import CandidateEvent, OtherEvent

    lines = [
        '{"seq": 0, "key": "a", "type": "candidate", "time": 1, '
        '"data": {"id": "n0", "score": "high", "ok": true, "shiny": 1}}',
        '{"seq": 1, "key": "b", "type": "teleport", "time": 2, "data": {"to": "mars"}, "v": 9}',
        '{"seq": 2, "key": "c", "type": "phase", "time": 3, "data": {"phase": "init"}, "v": 2}',
        '{"seq": 3, "key": "d", "type": "pha',
    ]
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(lines))
    evs = read_events(path)
    assert [e.type for e in evs] == ["candidate", "teleport", "phase"]  # torn last line skipped
    old = evs[0].payload
    assert isinstance(old, CandidateEvent)
    assert (old.name, old.score, old.ok) == ("n0", None, True)  # a bad field reads as its default
    assert old.model_extra == {"shiny": 1}  # a newer writer's field is kept
    assert evs[0].v == 1 and evs[1].v == 9
    assert isinstance(evs[1].payload, OtherEvent) and evs[1].payload.model_extra == {"to": "mars"}


def test_event_tail_reads_only_complete_appended_lines(tmp_path: Path) -> None:
    from mlestar_jupyter.journal import EventTail

    path = tmp_path / "events.jsonl"
    tail = EventTail(path)
    assert tail.events() == []
    path.write_text('{"seq": 0, "key": "a", "type": "phase", "data": {}, "time": 1}\n{"seq": 1, ')
    assert [e.key for e in tail.events()] == ["a"]
    with open(path, "a") as fh:
        fh.write('"key": "b", "type": "phase", "data": {}, "time": 2}\n')
    assert [e.key for e in tail.events()] == ["a", "b"]
    assert tail.events()[1]["type"] == "phase"  # events read as the JSON objects they were


def test_node_round_trips_through_its_candidate_event(tmp_path: Path) -> None:
    from mlestar_jupyter.journal import Node

    node = Node("p0-t1k2", "p0-merge1", "refine", "p0", "plan 2", "b3", "d1", 0.91, True)
    j = RunJournal.create(tmp_path / "r", {})
    j.emit("candidate", key="cand/p0-t1k2", node_id=node.id, **node.to_json())
    ev = read_events(tmp_path / "r" / "events.jsonl")[0]
    assert Node.from_event(ev.data) == node
    assert Node.from_event({"id": "x", "score": "?"}).score is None


def test_a_resumed_journal_starts_after_a_torn_line(tmp_path: Path) -> None:
    j = RunJournal.create(tmp_path / "r", {})
    j.emit("phase", key="p", phase="init")
    j.close()
    with open(tmp_path / "r" / "events.jsonl", "a") as fh:
        fh.write('{"seq": 1, "key": "x", "ty')  # the kill
    j2 = RunJournal.open(tmp_path / "r")
    j2.emit("phase", key="q", phase="refine")
    j2.close()
    assert [e.key for e in read_events(tmp_path / "r" / "events.jsonl")] == ["p", "q"]
