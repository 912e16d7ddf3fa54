/**
 * Shapes exchanged with the `mlestar_jupyter` server extension (base `/mlestar/`).
 *
 * The names mirror the pydantic models of the server (`StartRun`, `DescribeRun`, ...) and the
 * journal events of `mlestar_jupyter/journal/`; `tests/test_api_schema.py` checks every REST
 * model and field against `labextension/api-schema.json`.
 */

/** How the run is steered: run on, or wait for a decision after every proposal. */
export type RunMode = 'autopilot' | 'step';

/** LLM backends a user can pick in the dialog. */
export const BACKENDS = ['offline', 'gemini', 'openai'] as const;
export type Backend = (typeof BACKENDS)[number];

/** A decision on one proposal. */
export type Decision = 'accept' | 'reject';

/** Body of `POST /mlestar/runs`. */
export interface IStartRun {
  task_dir: string;
  notebook_path: string;
  backend: Backend;
  /** LLM model name (gemini / openai); absent: the server's `MLESTAR_LLM_MODEL` or the backend default. */
  model?: string;
  /** Seconds of wall-clock budget. */
  time_limit: number;
  /** Seconds one execution may run (> 0; left out: min(600, max(30, time_limit / 4))). */
  exec_timeout?: number;
  mode: RunMode;
  models?: number;
  inner?: number;
  outer?: number;
  parallel?: number;
  ensemble_rounds?: number;
  /** Refine only this block (the cell context menu's "Refine this cell with MLE-STAR"). */
  block?: string;
  /** A folder without task.json: the column to predict instead of the one read from the notebook. */
  target?: string;
  /** A folder without task.json: the metric instead of the one read from the notebook. */
  metric?: string;
}

/** Run states the server reports; unknown future states are kept as plain strings. */
export type RunStatus =
  | 'running'
  | 'done'
  | 'stopped'
  | 'failed'
  | 'no_improvement'
  | 'not_understood'
  | 'timed_out'
  | 'all_failed'
  | (string & {});

/** Answer of `POST /mlestar/runs`, `GET /mlestar/runs/{id}` and items of `GET /mlestar/runs`. */
export interface IDescribeRun {
  run_id: string;
  status: RunStatus;
  phase: string | null;
  best_score: number | null;
  metric: string | null;
  direction: 'maximize' | 'minimize' | string | null;
  notebook_path: string | null;
  task_dir: string | null;
  run_dir: string;
  started: number | null;
  elapsed: number;
  pending_proposals: number;
  /** Set by `POST /runs/{id}/pause`; the run waits between steps. */
  paused: boolean;
  /** Set by `POST /runs/{id}/cancel` until the run has stopped. */
  stop_requested: boolean;
  /** Why the run ended as it did (e.g. what was not understood); empty while it runs. */
  message?: string;
}

/** One line of a run's `events.jsonl`. */
export interface IRunEvent {
  seq: number;
  key: string;
  type: string;
  data: { [key: string]: unknown };
  time: number;
  /** Journal schema version (`journal/kinds`); absent or 1 in runs written before it. */
  v?: number;
}

/** Answer of `GET /mlestar/runs/{id}/events?after=N`. */
export interface IEventPage {
  events: IRunEvent[];
  /** Pass as `after` on the next call. */
  next: number;
}

/** What a proposal does to the notebook: change a cell, add one, or remove one. */
export type ProposalKind = 'change' | 'insert' | 'delete';

/** One kept improvement of a cell, waiting for (or carrying) a decision. */
export interface IProposal {
  proposal_id: string;
  /** Absent in proposals from older servers: a change. */
  kind?: ProposalKind;
  block_id: string | null;
  cell_id: string | null;
  /** Insert: the cell the new one goes after (both null: before the first code cell). */
  after_block_id?: string | null;
  after_cell_id?: string | null;
  old_source: string;
  new_source: string;
  plan: string;
  score_before: number | null;
  score_after: number | null;
  decision: Decision | null;
}

/** Body of `POST /mlestar/runs/{id}/proposals/{pid}/decision`. */
export interface IDecisionBody {
  decision: Decision;
}

/** Body of `POST /mlestar/runs/{id}/pause`. */
export interface IPauseBody {
  pause: boolean;
}

/** States after which a run never changes again. */
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set([
  'done',
  'stopped',
  'failed',
  'no_improvement',
  'not_understood',
  'timed_out',
  'all_failed'
]);

/** A JSON value as an object whose fields can be read (`{}` for anything else). */
export function asRecord(value: unknown): { [key: string]: unknown } {
  return value !== null && typeof value === 'object' ? (value as { [key: string]: unknown }) : {};
}

/** Whether a run has ended. */
export function isTerminal(status: RunStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

/** The most recently started run of a list (the server lists oldest first, but do not rely on it). */
export function latestRun(runs: IDescribeRun[]): IDescribeRun | null {
  let best: IDescribeRun | null = null;
  for (const run of runs) {
    if (best === null || (run.started ?? 0) >= (best.started ?? 0)) {
      best = run;
    }
  }
  return best;
}
