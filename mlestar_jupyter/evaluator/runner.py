"""Run an agent on pack tasks and grade what it leaves.

The agent is any ``RunAgent`` callable ``(task_dir, out_dir, agent, time_limit) -> AgentOutcome``;
the default, ``cli_run_agent``, runs ``mlestar run TASK --backend AGENT --time-limit T --out OUT``
in a subprocess and picks up ``OUT/final/submission.csv`` and ``OUT/final/solution.ipynb``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..llm.errors import INFRASTRUCTURE_ERRORS
from .bench import AgentOutcome, BenchReport, RunAgent, TaskResult
from .constraints import Judge
from .grading import grade_submission
from .report import write_report
from .summary import summarize

__all__ = [
    "MLESTAR_MAIN",
    "AgentOutcome",
    "BenchReport",
    "CliAgent",
    "RunAgent",
    "TaskResult",
    "cli_run_agent",
    "run_bench",
]


# what ``mlestar run``'s exit codes mean (``cli_run``: the evaluator runs the CLI as a
# separate program and reads only its exit code), said in a failed run's error
_EXIT_MEANING = {
    1: " (no valid submission could be written)",
    2: " (bad input: the log's last line says what to fix)",
    3: " (every candidate solution failed: the submission comes from a fall-back)",
}

MLESTAR_MAIN = (
    sys.executable,
    "-c",
    "import sys; from mlestar_jupyter.cli import main; sys.exit(main())",
)


@dataclass(frozen=True)
class CliAgent:
    """A ``RunAgent`` that runs ``mlestar run TASK --backend AGENT --time-limit T --out OUT``.

    ``command`` is how ``mlestar`` is started (default: this Python and ``mlestar_jupyter.cli``);
    the run is killed at ``grace_factor`` x the time limit + ``grace_s``.  Its output is
    ``OUT/final/submission.csv`` and ``OUT/final/solution.ipynb``; the log goes to ``OUT/agent.log``.
    """

    command: tuple[str, ...] = MLESTAR_MAIN
    extra_args: tuple[str, ...] = ("--no-progress",)  # the log is a file: no progress bar
    grace_factor: float = 1.5
    grace_s: float = 60.0

    def __call__(
        self, task_dir: Path, out_dir: Path, agent: str, time_limit: float
    ) -> AgentOutcome:
        cmd = [
            *self.command,
            "run",
            str(task_dir),
            "--backend",
            agent,
            "--time-limit",
            str(time_limit),
            "--out",
            str(out_dir),
            *self.extra_args,
        ]
        limit = time_limit * self.grace_factor + self.grace_s
        t0 = time.perf_counter()
        error: str | None = None
        out_dir.mkdir(parents=True, exist_ok=True)
        try:
            with (out_dir / "agent.log").open("w", encoding="utf-8") as log:
                r = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, timeout=limit)
            if r.returncode != 0:
                error = f"`mlestar run {task_dir.name} --backend {agent}` exited with {r.returncode}{_EXIT_MEANING.get(r.returncode, '')}; see {out_dir / 'agent.log'}"
        except subprocess.TimeoutExpired:
            error = f"agent ran past {limit:.0f}s and was stopped"
        except OSError as e:
            error = f"cannot start the agent: {e}"
        final = out_dir / "final"
        sub, nb = final / "submission.csv", final / "solution.ipynb"
        return AgentOutcome(
            sub if sub.is_file() else None,
            nb if nb.is_file() else None,
            time.perf_counter() - t0,
            error,
        )


cli_run_agent: RunAgent = CliAgent()


def run_bench(
    task_dirs: Sequence[str | Path],
    out_dir: str | Path,
    agent: str = "offline",
    time_limit: float = 3600.0,
    run_agent: RunAgent = cli_run_agent,
    judge: Judge | None = None,
    log: Callable[[str], None] = print,
) -> BenchReport:
    """Run ``agent`` on each task, grade each result, and write the report under ``out_dir``.

    A run that raises is graded as a run without a submission, except for the LLM's
    infrastructure errors (a refused key, an unreachable server): those end the bench."""
    out = Path(out_dir).expanduser().resolve()
    out.mkdir(parents=True, exist_ok=True)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    results: list[TaskResult] = []
    for td in task_dirs:
        task_dir = Path(td).expanduser().resolve()
        run_out = out / "runs" / task_dir.name
        log(f"[bench] {task_dir.name}: running {agent} (time limit {time_limit:.0f}s)")
        try:
            outcome = run_agent(task_dir, run_out, agent, time_limit)
        except INFRASTRUCTURE_ERRORS:
            raise
        except Exception as e:  # noqa: BLE001 - one crashing run must not end the bench
            outcome = AgentOutcome(None, None, 0.0, f"{type(e).__name__}: {e}")
        grade = grade_submission(
            task_dir, outcome.submission_path, outcome.solution_notebook_path, judge
        )
        log(f"[bench] {grade.summary()}")
        results.append(
            TaskResult(
                task_dir=str(task_dir),
                out_dir=str(run_out),
                agent_seconds=outcome.seconds,
                agent_error=outcome.error,
                grade=grade,
            )
        )
    report = BenchReport(
        agent=agent,
        time_limit=time_limit,
        started_at=started,
        seconds=time.perf_counter() - t0,
        tasks=results,
        summary=summarize([r.grade for r in results]),
    )
    files = write_report(report, out)
    log(f"[bench] report: {files['html']}")
    return report
