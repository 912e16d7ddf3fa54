/**
 * Turn journal events and the run description into the panel's status text.
 *
 * `RunSummary` folds events one page at a time (the poller feeds it); `statusLine` and
 * `describeEvent` are the texts users (and the UI test) read.
 */
import { IDescribeRun, IProposal, IRunEvent, isTerminal } from './models';

/** A score as users read it: up to 4 decimals, no trailing zeros; `–` when unknown. */
export function formatScore(score: number | null | undefined): string {
  if (score === null || score === undefined || !Number.isFinite(score)) {
    return '–';
  }
  const abs = Math.abs(score);
  if (abs !== 0 && (abs >= 1e6 || abs < 1e-4)) {
    return score.toExponential(3);
  }
  return String(Number(score.toFixed(4)));
}

/** Whether `a` beats `b` for a metric going in `direction`. */
export function better(a: number, b: number | null, direction: string | null | undefined): boolean {
  if (b === null) {
    return true;
  }
  return direction === 'minimize' ? a < b : a > b;
}

/**
 * A one-line description of an event, or null for events not worth a line (llm calls...).
 * Events of one search path start with it (`[p0] ...`); values the event lacks are left out.
 */
export function describeEvent(event: IRunEvent): string | null {
  const line = describeBare(event);
  if (line === null) {
    return null;
  }
  const path = event.data?.path;
  const name = path === null || path === undefined ? '' : String(path).trim();
  return name ? `[${name}] ${line}` : line;
}

/** ` → 0.93`, or '' when the score is unknown. */
function scorePart(prefix: string, score: unknown): string {
  return typeof score === 'number' && Number.isFinite(score)
    ? `${prefix}${formatScore(score)}`
    : '';
}

/** `: 0.91 → 0.93` with what is known, '' when neither is. */
function scores(before: unknown, after: unknown): string {
  const text = `${scorePart('', before)}${scorePart(' → ', after)}`.trim();
  return text ? `: ${text}` : '';
}

function describeBare(event: IRunEvent): string | null {
  const d = event.data ?? {};
  switch (event.type) {
    case 'run_started':
      return d.backend ? `Run started (backend ${d.backend})` : 'Run started';
    case 'resumed':
      return 'Run resumed';
    case 'phase':
      return `Phase: ${d.phase}`;
    case 'models':
      return `Retrieved ${count(d.cards)} model(s)`;
    case 'candidate':
      return d.ok === false
        ? `${d.phase ? `${d.phase}: ` : ''}${d.label || d.node_id} failed${d.error ? `: ${firstLine(d.error)}` : ''}`
        : `${d.phase ? `${d.phase}: ` : ''}${d.label || d.node_id}${scorePart(' → ', d.score)}`;
    case 'ablation':
      return `Ablation (t=${d.t}): ${firstLine(d.summary ?? '') || `${count(d.results)} blocks`}`;
    case 'target':
      return `Refining block ${d.block_id}: ${firstLine(d.plan ?? '')}`;
    case 'plan':
      return `Plan for block ${d.block_id}: ${firstLine(d.plan ?? '')}`;
    case 'improvement':
      return `Block ${d.block_id}${scores(d.old_score, d.new_score)}${d.kept ? ' (kept)' : ''}`;
    case 'proposal':
      return `Proposal ${d.proposal_id} for block ${d.block_id}${scores(d.score_before, d.score_after)}`;
    case 'decision':
      return `Proposal ${d.proposal_id} ${d.decision === 'accept' ? 'accepted' : 'rejected'}`;
    case 'ensemble_plan':
      return `Ensemble round ${d.r}${scorePart(' → ', d.score)}`;
    case 'ensemble_pick':
      return `Picked ${d.label || d.chosen}${scorePart(' (', d.score)}${typeof d.score === 'number' ? ')' : ''}`;
    case 'debug':
      return `Debugging ${d.node_id} (round ${d.round})${d.fixed ? ': fixed' : ''}`;
    case 'leakage':
      return d.leaky ? `Leakage in block ${d.block_id}${d.fixed ? ' (fixed)' : ''}` : null;
    case 'data_usage':
      return count(d.unused_files)
        ? `Unused data files: ${(d.unused_files as string[]).join(', ')}`
        : null;
    case 'understanding':
      return describeUnderstanding(d);
    case 'validation_split':
      return describeSplit(d);
    case 'skipped':
      return `Skipped ${d.label || d.node_id || 'a candidate'}${d.reason ? `: ${d.reason}` : ''}`;
    case 'final':
      return `Final${scorePart(' score ', d.score)}${d.valid === false ? ' (invalid submission)' : ''}`;
    case 'heldout':
      return typeof d.score === 'number'
        ? `Held-out score${scorePart(' ', d.score)} on ${d.rows ?? 'the'} rows the search never saw`
        : `Held-out rows not graded${d.reason ? `: ${d.reason}` : ''}`;
    case 'budget':
    case 'warning':
      return `⚠ ${d.message ?? d.what}`;
    case 'error':
      return `✖ ${d.message}`;
    case 'run_finished':
      return `Run ${d.status ?? 'ended'}${scorePart(': best ', d.best_score)}${
        d.reason ? ` (${d.reason})` : ''
      }`;
    default:
      return null;
  }
}

/**
 * How the user's notebook was read: `Read your notebook: 4 cells (1 load, 2 model, 1 evaluate),
 * target y; added validation cell b5`, or why it was not understood.
 */
function describeUnderstanding(d: Record<string, unknown>): string {
  if (d.understood === false) {
    return `✖ Your notebook was not understood${d.reason ? `: ${firstLine(d.reason)}` : ''}`;
  }
  const roles = Object.values(d.roles && typeof d.roles === 'object' ? d.roles : {}).map(String);
  const tally = new Map<string, number>();
  roles.forEach(role => tally.set(role, (tally.get(role) ?? 0) + 1));
  const parts = [...tally].map(([role, n]) => `${n} ${role}`).join(', ');
  const mixed = count(d.mixed);
  return [
    `Read your notebook: ${roles.length} cell(s)${parts ? ` (${parts})` : ''}`,
    d.target ? `, target ${d.target}` : '',
    mixed ? `; ${mixed} mixed cell(s) (refined part by part)` : '',
    d.added_block ? `; added validation cell ${d.added_block}` : '',
    machineChanges(d.data_paths)
  ].join('');
}

/**
 * What each kind of change a run makes to a user's notebook (`PathChange.kind` in
 * `mlestar_jupyter/agent/changes.py`) is called, in the order said: the same words as the
 * widget's log (`CHANGE_KINDS` in `mlestar_jupyter/widgets/progress.py`). A kind missing here
 * (one from a newer run) is said as "other change(s)". `tests/test_change_kinds_ts.py` checks
 * this list against the Python ones.
 */
export const CHANGE_KINDS: ReadonlyArray<readonly [string, string]> = [
  ['path', 'data path(s) pointed at ./input'],
  ['install', 'install line(s) not run'],
  ['colab', 'line(s) only Colab runs not run'],
  ['shell', "shell line(s) pointed at the run's folders or not run"],
  ['module', 'import(s) of missing plot packages stood in for'],
  ['fold', 'line(s) added to score every pass of a loop'],
  ['temp', "line(s) added to make Kaggle's scratch folder"],
  ['local', 'line(s) of your own modules changed in the copy the kernel imports'],
  ['output', 'write(s) into the data folder sent to the work folder'],
  ['stop', "line(s) at or after the notebook's own exit not run"],
  ['keep', 'del line(s) keeping what the added validation cell reads'],
  ['old_api', 'call(s) of older library versions rewritten'],
  ['input', 'input() call(s) given the answer saved with the cell'],
  ['error', 'line(s) of cells that failed before you ran the cells below not run'],
  ['cwd', "name(s) of the notebook's own folder pointed at ./input"],
  ['debug', 'debug switch(es) turned off'],
  ['gpu', "GPU setting(s) made the CPU's (no GPU here)"],
  ['scoring', 'scoring(s) made to score the positive class'],
  ['argv', 'argument parser(s) given an empty command line']
];

/**
 * What was changed in the user's cells to run here (the understanding event's `data_paths`,
 * `[block, as written, now, kind]`): `; changed for this machine: 2 data path(s) pointed at
 * ./input, 1 install line(s) not run`, or nothing. Every change is counted, one of a kind this
 * version does not know as "other change(s)".
 */
function machineChanges(changes: unknown): string {
  const rows = Array.isArray(changes) ? changes.filter(c => Array.isArray(c)) : [];
  const kinds = new Map<string, number>();
  rows.forEach(c => {
    const kind = c.length > 3 ? String(c[3]) : 'path';
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  });
  const known = new Set(CHANGE_KINDS.map(([k]) => k));
  const said = CHANGE_KINDS.filter(([k]) => kinds.get(k)).map(
    ([k, what]) => `${kinds.get(k)} ${what}`
  );
  let other = 0;
  kinds.forEach((n, k) => {
    if (!known.has(k)) {
      other += n;
    }
  });
  if (other) {
    said.push(`${other} other change(s)`);
  }
  return said.length ? `; changed for this machine: ${said.join(', ')}` : '';
}

/** The run's harness split: `Validation split: 114 of 569 labelled rows of train.csv (seed 0)`. */
function describeSplit(d: Record<string, unknown>): string {
  if (!d.file) {
    return 'No validation split held out: scores are the ones the notebooks print';
  }
  const of = typeof d.n_labelled === 'number' ? ` of ${d.n_labelled} labelled` : '';
  const table = d.table ? ` of ${d.table}` : '';
  const seed = typeof d.seed === 'number' ? ` (seed ${d.seed})` : '';
  const kfold = d.kfold ? ' (or k-fold on every labelled row)' : '';
  return `Validation split: ${d.rows ?? 0}${of} rows${table}${seed}, scored by the harness${kfold}`;
}

/** How many items a list field holds (0 when it is missing or not a list). */
function count(items: unknown): number {
  return Array.isArray(items) ? items.length : 0;
}

function firstLine(text: unknown): string {
  const line =
    String(text)
      .split('\n')
      .find(l => l.trim()) ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line.trim();
}

/** What the events of a run say so far. */
export class RunSummary {
  phase: string | null = null;
  bestScore: number | null = null;
  /** Scores of successful candidates, in order. */
  readonly scores: number[] = [];
  /** Described events, newest last, at most `maxLines`. */
  readonly lines: string[] = [];
  finished: string | null = null;
  lastError: string | null = null;
  /** Why the run ended as it did (`run_finished`'s reason), e.g. "no model fit found". */
  reason: string | null = null;
  /** `next` of the last page, to pass as `after`. */
  cursor = 0;

  constructor(
    readonly direction: string | null = null,
    readonly maxLines = 200
  ) {}

  /** Fold one page of events in (events already seen are skipped by seq). */
  add(events: IRunEvent[], next?: number): void {
    for (const event of events) {
      if (event.seq < this.cursor) {
        continue;
      }
      this.apply(event);
      this.cursor = Math.max(this.cursor, event.seq + 1);
    }
    if (next !== undefined) {
      this.cursor = Math.max(this.cursor, next);
    }
  }

  private apply(event: IRunEvent): void {
    const d = event.data ?? {};
    switch (event.type) {
      case 'phase':
        this.phase = d.phase === null || d.phase === undefined ? this.phase : String(d.phase);
        break;
      case 'candidate':
      case 'ensemble_plan':
        // Ablation variants and submission runs measure; they are not solutions.
        if (d.phase === 'ablation' || d.phase === 'submission') {
          break;
        }
        if (d.ok !== false && typeof d.score === 'number') {
          this.scores.push(d.score);
          this.offer(d.score);
        }
        break;
      case 'final':
        if (typeof d.score === 'number') {
          this.offer(d.score);
        }
        break;
      case 'error':
        this.lastError = String(d.message ?? 'error');
        break;
      case 'run_finished':
        this.finished = String(d.status ?? 'done');
        this.reason = d.reason ? String(d.reason) : null;
        this.phase = 'done';
        if (typeof d.best_score === 'number') {
          this.bestScore = d.best_score;
        }
        break;
    }
    const line = describeEvent(event);
    if (line) {
      this.lines.push(line);
      if (this.lines.length > this.maxLines) {
        this.lines.splice(0, this.lines.length - this.maxLines);
      }
    }
  }

  private offer(score: number): void {
    if (better(score, this.bestScore, this.direction)) {
      this.bestScore = score;
    }
  }
}

/** Count proposals by state. */
export function countProposals(proposals: IProposal[]): {
  total: number;
  pending: number;
} {
  return {
    total: proposals.length,
    pending: proposals.filter(p => !p.decision).length
  };
}

/**
 * The panel's one-line status, e.g.
 * `running · phase refine · best accuracy 0.93 ↑ · 2 proposals (1 pending)`.
 */
export function statusLine(
  run: IDescribeRun | null,
  summary: RunSummary,
  proposals: IProposal[],
  cells?: { total: number; pending: number }
): string {
  if (!run) {
    return 'No MLE-STAR run for this notebook yet.';
  }
  const status =
    summary.finished ?? (run.paused && !isTerminal(run.status) ? 'paused' : run.status);
  const phase = run.phase ?? summary.phase ?? 'starting';
  const best = run.best_score ?? summary.bestScore;
  const arrow = run.direction === 'minimize' ? ' ↓' : run.direction === 'maximize' ? ' ↑' : '';
  const metric = run.metric ? `${run.metric} ` : '';
  const { total, pending } = countProposals(proposals);
  const noun = total === 1 ? 'proposal' : 'proposals';
  const parts = [status, `phase ${phase}`];
  if (best !== null && Number.isFinite(best)) {
    parts.push(`best ${metric}${formatScore(best)}${arrow}`);
  }
  if (cells) {
    const what = cells.total === 1 ? 'changed cell' : 'changed cells';
    parts.push(`${cells.total} ${what}${cells.pending ? ` (${cells.pending} pending)` : ''}`);
  } else {
    parts.push(`${total} ${noun}${pending ? ` (${pending} pending)` : ''}`);
  }
  const reason = summary.reason ?? (isTerminal(run.status) ? run.message : null);
  if (reason) {
    parts.push(reason);
  }
  return parts.join(' · ');
}
