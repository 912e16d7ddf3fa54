/**
 * Follow one run over REST, independent of any kernel: its description, new events, proposals.
 *
 * `refresh()` does one round; `start()` repeats it every `interval` ms until the run has ended
 * (then one last round, so final events and decisions are shown) or `dispose()`.
 */
import { ISignal, Signal } from '@lumino/signaling';

import { IMlestarAPI } from './api';
import { IDescribeRun, IProposal, isTerminal } from './models';
import { RunCharts } from './charts';
import { RunSummary, statusLine } from './status';

/** Follows one run. */
export class RunMonitor {
  constructor(
    run: IDescribeRun,
    private readonly api: Pick<IMlestarAPI, 'getRun' | 'getEvents' | 'getProposals'>,
    readonly interval = 1500
  ) {
    this._run = run;
    this.summary = new RunSummary(run.direction);
    this.charts = new RunCharts(run.direction);
  }

  /** Emitted after every round that reached the server, and on errors. */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  get run(): IDescribeRun {
    return this._run;
  }

  get proposals(): IProposal[] {
    return this._proposals;
  }

  /** The last failure to reach the server, cleared by the next successful round. */
  get error(): string | null {
    return this._error;
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  readonly summary: RunSummary;
  /** What the panel's charts draw, folded from the same events. */
  readonly charts: RunCharts;

  /** The status text shown in the panel. */
  get statusText(): string {
    return statusLine(this._run, this.summary, this._proposals);
  }

  /** One round: run description, new events (all pages), proposals. */
  async refresh(): Promise<void> {
    try {
      const run = await this.api.getRun(this._run.run_id);
      for (let pages = 0; pages < 50; pages++) {
        const page = await this.api.getEvents(this._run.run_id, this.summary.cursor);
        const before = this.summary.cursor;
        const fresh = page.events.filter(e => e.seq >= before);
        this.summary.add(page.events, page.next);
        fresh.forEach(e => this.charts.add(e));
        if (page.events.length === 0 || this.summary.cursor === before) {
          break;
        }
      }
      this._proposals = await this.api.getProposals(this._run.run_id);
      this._run = run;
      this._error = null;
    } catch (error) {
      this._error = error instanceof Error ? error.message : String(error);
    }
    if (!this._disposed) {
      this._changed.emit();
    }
  }

  /** Poll until the run ends (plus one final round) or the monitor is disposed. */
  start(): void {
    if (this._timer !== null || this._disposed) {
      return;
    }
    const tick = async () => {
      await this.refresh();
      if (this._disposed) {
        return;
      }
      const ended = isTerminal(this._run.status) || this.summary.finished !== null;
      // After the end keep polling slowly: decisions made elsewhere still show up.
      this._timer = setTimeout(tick, ended ? this.interval * 10 : this.interval);
    };
    this._timer = setTimeout(tick, 0);
  }

  /** Replace a proposal locally after a decision, before the next round confirms it. */
  markDecided(proposalId: string, decision: 'accept' | 'reject'): void {
    this._proposals = this._proposals.map(p =>
      p.proposal_id === proposalId ? { ...p, decision } : p
    );
    this._changed.emit();
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
    Signal.clearData(this);
  }

  private _run: IDescribeRun;
  private _proposals: IProposal[] = [];
  private _error: string | null = null;
  private _disposed = false;
  private _timer: ReturnType<typeof setTimeout> | null = null;
  private _changed = new Signal<this, void>(this);
}
