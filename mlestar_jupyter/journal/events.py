"""Journal events: what happened in a run, one JSON object per line of ``events.jsonl``.

Every event has ``seq`` (position in the file), ``key`` (a deterministic name, so a resumed run
recognises events it already wrote), ``time``, ``type``, ``data`` and ``v`` (the schema version,
``kinds.SCHEMA_VERSION``; lines without it are version 1).  Each type's ``data`` has a pydantic
model in ``kinds`` (``Event.payload`` parses it).  The types and their data:

============== ===============================================================================
run_started    task (Task.to_json), config (RunConfig.to_json), backend
phase          phase: retrieve | init | merge | refine | ensemble | submission | done; path
models         cards: [{name, description, source, url}] (url: the page that model came from)
retrieval_fallback  reason, catalog_models: the retriever's answer was unusable (after re-asks)
               or too short, and the local catalog filled in these models
understanding  understood, reason, roles ({block_id: role}, inferred from the code unless tagged),
               mixed (block ids with several refinable parts), target, added_block (the
               validation cell added to a user's notebook, or None), note
candidate      node_id, parent_id, phase, path, label, block_id, score, ok, error, duration,
               notebook (relative path of the executed notebook), printed_score (what the code
               printed; ``score`` is the harness's), score_status (measured | mismatch | printed
               | untrusted | none)
validation_split  file (val_index.csv, also in the run folder), table, rows, n_labelled, seed,
               digest, columns: the run's validation rows, once per run (file None: no split)
score_mismatch node_id, printed, measured, message: the printed score is not the measured one
score_untrusted node_id, printed, measured, message: no score the harness can trust
plan           path, t, k, block_id, plan
ablation       path, t, baseline, results: [{name, block_id, score, delta}], summary
target         path, t, block_id, fragment, plan
improvement    path, t, k, node_id, block_id, old_score, new_score, kept
proposal       proposal_id, path, node_id, kind: change | insert | delete, block_id, cell_id,
               old_source, new_source, plan, score_before, score_after; an insert also has
               after_block_id / after_cell_id (the cell it goes after; None: the top)
decision       proposal_id, decision: accept | reject, by
ensemble_plan  r, plan, node_id, score
ensemble_pick  chosen (node id), label, score, kind: ensemble | single (a single solution kept
               because it beats every ensemble) | blend (the final phase's weighted mean of the
               best solution and another path's best, ``agent/blend.py``), best_ensemble,
               best_ensemble_score, best_single, best_single_score, reason
debug          node_id, round, error, fixed (bool)
subsampling    node_id, found, removed, remaining: A_test's check of a final notebook's code; or
               node_id, rows_reported, rows_expected, problem: its run's "Training rows: <n>"
leakage        node_id, block_id, leaky, reason, fixed (bool)
data_usage     unused_files, fixed (bool)
llm_call       call_id, role, model, prompt_tokens, completion_tokens, cost_usd, latency_s, cached
budget         what, message; why: a refinement that ended with nothing to refine, in the
               policy's words (its end message says it)
skipped        node_id, phase, path, label, block_id, estimate, limit (seconds), reason: a
               candidate not started (``agent.cost``)
final          score, notebook, submission, rung, valid, reason
novelty        verdict: Novel | Same | skipped, reason (why it was skipped: no reference text,
               an offline backend, no final notebook, or the check failed)
warning        message; what: task for how task.json's names were matched to input/
error          message
run_finished   status: done | stopped | failed | no_improvement | not_understood | timed_out | all_failed,
               best_score, elapsed, reason (why it ended so)
run_stopped    reason, elapsed, best_score, by: this process stopped (Ctrl-C, a stop from the UI,
               the server shutting down); the run can be resumed
resumed        elapsed: a stopped or killed run was started again
sandbox        kind: bwrap | setpriv | popen-user | none | gateway, user, network, note (why no
               jail); written each time the run's executor starts (docs/security.md)
============== ===============================================================================
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field, fields
from functools import cached_property
from pathlib import Path
from typing import Any

from .kinds import SCHEMA_VERSION, EventData, parse_data

# The types the widget fixture (tests/files/widgets_events.jsonl) covers; every type with a model
# is in ``kinds.EVENT_MODELS`` (also ``understanding`` and ``run_stopped``).
EVENT_TYPES = (
    "run_started",
    "phase",
    "models",
    "retrieval_fallback",
    "candidate",
    "validation_split",
    "score_mismatch",
    "score_untrusted",
    "plan",
    "ablation",
    "target",
    "improvement",
    "proposal",
    "decision",
    "ensemble_plan",
    "ensemble_pick",
    "debug",
    "subsampling",
    "leakage",
    "data_usage",
    "llm_call",
    "budget",
    "skipped",
    "final",
    "heldout",
    "novelty",
    "warning",
    "error",
    "run_finished",
    "resumed",
    "sandbox",
)


@dataclass(frozen=True)
class Event:
    """One journal event: the envelope, with ``data`` as written and ``payload`` typed."""

    seq: int
    key: str
    type: str
    data: dict[str, Any] = field(default_factory=dict)
    time: float = field(default_factory=time.time)
    v: int = SCHEMA_VERSION

    @cached_property
    def payload(self) -> EventData:
        """``data`` as the model of this event's type (lenient: see ``kinds.parse_data``)."""
        return parse_data(self.type, self.data)

    def to_json(self) -> dict[str, Any]:
        """The line's JSON object."""
        return asdict(self)

    def __getitem__(self, name: str) -> Any:
        """A key of the line's JSON object (``ev["type"]``), as when events were plain dicts."""
        if name not in _FIELDS:
            raise KeyError(name)
        return getattr(self, name)

    def to_line(self) -> str:
        """The event as one line of ``events.jsonl`` (strict JSON, no newline)."""
        return json.dumps(self.to_json(), default=str, ensure_ascii=False, allow_nan=False)

    @classmethod
    def from_json(cls, d: dict[str, Any], index: int | None = None) -> Event:
        """An event from its JSON object; ``index`` (the line's position) stands in for a
        missing ``seq``.  Raises ``KeyError``/``ValueError``/``TypeError`` for what is no event."""
        if index is None or "seq" in d:
            seq = int(d["seq"])
        else:
            seq = index
        t = d.get("time", 0)
        return cls(
            seq=seq,
            key=str(d["key"]) if "key" in d else f"_{seq}",
            type=str(d["type"]),
            data=dict(d.get("data") or {}),
            time=float(t) if isinstance(t, int | float) and math.isfinite(t) else 0.0,
            v=int(d.get("v", 1)),
        )


_FIELDS = frozenset(f.name for f in fields(Event))


def parse_line(line: bytes | str, index: int) -> Event | None:
    """The event on one line of ``events.jsonl``, or ``None`` for a line that holds none."""
    try:
        d = json.loads(line)
        return Event.from_json(d, index) if isinstance(d, dict) else None
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, ValueError, TypeError):
        return None


def read_events(path: str | Path) -> list[Event]:
    """Every complete event in an ``events.jsonl`` (a torn last line from a kill is skipped)."""
    from .tail import EventTail

    return EventTail(Path(path)).events()
