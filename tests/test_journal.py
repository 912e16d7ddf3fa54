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
