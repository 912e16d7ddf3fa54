/**
 * The MLE-STAR panel opened beside a notebook, drawn from the run's journal (no kernel needed).
 *
 * Top: status, a budget progress bar, Pause / Stop, the plan being tried, links to the sections.
 * Then: the proposals, one card per changed cell (best version against the cell as it is now),
 * and the charts — score trajectory, ablation bars, ensemble table, solution tree — and the log.
 */
import { Notebook, NotebookPanel } from '@jupyterlab/notebook';
import { Panel, Widget } from '@lumino/widgets';

import { IMlestarAPI } from './api';
import { drawAblations, drawEnsemble, drawTrajectory, drawTree } from './charts';
import { decideProposal, DecisionError } from './decisions';
import { CellDiffView } from './diff';
import { findProposalCell, ICellLike } from './matching';
import { IDescribeRun, isTerminal } from './models';
import { RunMonitor } from './monitor';
import {
  acceptableGroups,
  cardState,
  CardState,
  groupProposals,
  ICellGroup,
  IVersion,
  offeredVersion
} from './proposals';
import { formatScore, statusLine } from './status';

/** Options of a panel. */
export interface IRunPanelOptions {
  notebook: NotebookPanel;
  api: IMlestarAPI;
  /** Poll period in ms. */
  interval?: number;
}

/** What `setRun` may add to the run's description. */
export interface ISetRunOptions {
  /** The run's budget in seconds when the caller knows it (before the journal says it). */
  timeLimit?: number;
  /** A notice shown at the top (e.g. that the notebook was saved before the run). */
  notice?: string;
}

/** `1m 05s`, `42s`. */
export function formatSeconds(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) {
    return `${s}s`;
  }
  const m = Math.floor(s / 60);
  if (m < 60) {
    return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  }
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** The chart sections, in order: [key, title]. */
const SECTIONS: [string, string][] = [
  ['proposals', 'Proposals'],
  ['trajectory', 'Score trajectory'],
  ['ablation', 'Ablation'],
  ['ensemble', 'Ensemble'],
  ['tree', 'Solution tree'],
  ['log', 'Log']
];

/** The panel of one notebook; `setRun` switches it to another run. */
export class RunPanel extends Panel {
  constructor(options: IRunPanelOptions) {
    super();
    this._notebook = options.notebook;
    this._api = options.api;
    this._interval = options.interval ?? 1500;
    this.id = `mlestar-panel-${options.notebook.id}`;
    this.addClass('mlestar-Panel');
    this.title.label = `MLE-STAR: ${options.notebook.title.label}`;
    this.title.closable = true;

    const header = new Widget();
    header.addClass('mlestar-Panel-header');
    this._status = div('mlestar-status', 'No MLE-STAR run for this notebook yet.');
    this._progress = div('mlestar-progress');
    this._progressBar = div('mlestar-progress-bar');
    this._progressText = div('mlestar-progress-text');
    this._progress.append(this._progressBar, this._progressText);
    this._progress.setAttribute('role', 'progressbar');
    this._pauseButton = button('Pause', 'mlestar-pause', () => void this.togglePause());
    this._stopButton = button('Stop', 'mlestar-stop', () => void this.stop());
    const controls = div('mlestar-Panel-controls');
    controls.append(this._pauseButton, this._stopButton);
    this._notice = div('mlestar-notice');
    this._message = div('mlestar-message');
    this._plan = div('mlestar-plan');
    const nav = div('mlestar-nav');
    nav.setAttribute('role', 'tablist');
    for (const [key, title] of SECTIONS) {
      const link = button(title, 'mlestar-nav-link', () =>
        this._sections.get(key)?.scrollIntoView({ block: 'start' })
      );
      link.dataset.section = key;
      link.setAttribute('role', 'tab');
      nav.append(link);
    }
    header.node.append(
      this._status,
      this._progress,
      controls,
      this._notice,
      this._message,
      this._plan,
      nav
    );
    this.addWidget(header);

    const body = new Widget();
    body.addClass('mlestar-Panel-body');
    for (const [key, title] of SECTIONS) {
      const section = document.createElement('section');
      section.className = 'mlestar-section';
      section.dataset.section = key;
      const h = document.createElement('h3');
      h.textContent = title;
      const content = div('mlestar-section-body');
      section.append(h, content);
      this._sections.set(key, section);
      body.node.append(section);
    }
    this._acceptBest = button('Accept best', 'mlestar-accept-best jp-mod-accept', () => {
      void this.acceptBest();
    });
    this._acceptBest.title = 'Accept the best version of every pending cell';
    const bar = div('mlestar-proposals-bar');
    this._proposalsNote = div('mlestar-proposals-note');
    bar.append(this._acceptBest, this._proposalsNote);
    this._sectionBody('proposals').append(bar);
    this.addWidget(body);

    this._cards = new Panel();
    this._cards.addClass('mlestar-proposals');
    this._sectionBody('proposals').append(this._cards.node);

    this._notebook.disposed.connect(() => this.dispose());
    this._notebook.model?.contentChanged.connect(this._scheduleCards, this);
  }

  /** The run shown, or null. */
  get run(): IDescribeRun | null {
    return this._monitor?.run ?? null;
  }

  /** The REST follower of the current run (null before `setRun`). */
  get monitor(): RunMonitor | null {
    return this._monitor;
  }

  /** Follow `run` (replacing any previous one). */
  setRun(run: IDescribeRun, options: ISetRunOptions = {}): void {
    if (options.notice !== undefined) {
      this._notice.textContent = options.notice;
    }
    if (this._monitor?.run.run_id === run.run_id) {
      return;
    }
    this._monitor?.dispose();
    this._timeLimit = options.timeLimit ?? null;
    this._cardsKey = '';
    this._chartsCursor = -1;
    this._clearCards();
    this._monitor = new RunMonitor(run, this._api, this._interval);
    this._monitor.changed.connect(this._render, this);
    this._render();
    this._monitor.start();
    // The bar moves between polls too (from the first second).
    if (this._ticker === null) {
      this._ticker = setInterval(() => this._renderProgress(), 1000);
    }
  }

  /** The groups shown as cards (one per changed cell). */
  get groups(): ICellGroup[] {
    return this._groups;
  }

  /** Accept `version` of `group`: write the cell, record the decision, show the cell. */
  async acceptVersion(group: ICellGroup, version: IVersion): Promise<boolean> {
    const run = this.run;
    const model = this._notebook.content.model;
    if (!run || !model) {
      return false;
    }
    try {
      const pending = version.proposals.filter(p => !p.decision);
      let index: number | undefined;
      if (version.decision === 'accept' || pending.length === 0) {
        // Accepted before and undone since (Ctrl+Z): put it back, the decision stands.
        const match = findProposalCell(model.cells, pendingLike(group));
        if (match && version.kind === 'change') {
          match.cell.sharedModel.setSource(version.newSource);
          index = match.index;
        }
      } else {
        const result = await decideProposal(run.run_id, pending[0], 'accept', {
          api: this._api,
          cells: () => model.cells,
          insertCell: (i, source, blockId) =>
            model.sharedModel.insertCell(i, {
              cell_type: 'code',
              source,
              metadata: blockId
                ? { mlestar: { block_id: blockId, role: 'other', origin: 'mlestar' } }
                : {}
            }),
          deleteCell: i => model.sharedModel.deleteCell(i)
        });
        index = result.cellIndex;
        this._monitor?.markDecided(pending[0].proposal_id, 'accept');
        // The same change proposed by other paths is decided with it.
        for (const p of pending.slice(1)) {
          try {
            await this._api.decide(run.run_id, p.proposal_id, 'accept');
            this._monitor?.markDecided(p.proposal_id, 'accept');
          } catch {
            // already decided elsewhere: the next poll shows it
          }
        }
      }
      this._message.textContent = '';
      if (index !== undefined) {
        this.showCell(index);
      }
      return true;
    } catch (error) {
      this._message.textContent =
        error instanceof DecisionError ? error.message : `Decision failed: ${String(error)}`;
      return false;
    }
  }

  /** Reject every pending version of `group` (the cell stays as it is). */
  async rejectGroup(group: ICellGroup): Promise<void> {
    const run = this.run;
    if (!run) {
      return;
    }
    try {
      for (const version of group.versions) {
        for (const p of version.proposals.filter(q => !q.decision)) {
          await decideProposal(run.run_id, p, 'reject', { api: this._api, cells: () => [] });
          this._monitor?.markDecided(p.proposal_id, 'reject');
        }
      }
      this._message.textContent = '';
    } catch (error) {
      this._message.textContent =
        error instanceof DecisionError ? error.message : `Decision failed: ${String(error)}`;
    }
  }

  /** Accept the best version of every pending card whose cell is as the run read it. */
  async acceptBest(): Promise<void> {
    const groups = acceptableGroups(this._groups, g => this._currentSource(g));
    let first: number | null = null;
    for (const group of groups) {
      const model = this._notebook.content.model;
      if (!(await this.acceptVersion(group, group.versions[0]))) {
        break;
      }
      const match = model ? findProposalCell(model.cells, pendingLike(group)) : null;
      if (match && first === null) {
        first = match.index;
      }
    }
    if (first !== null) {
      this.showCell(first);
    }
  }

  /** Scroll to the cell at `index`, make it active and highlight it for a few seconds. */
  showCell(index: number): void {
    const content: Notebook = this._notebook.content;
    const cell = content.widgets[index];
    if (!cell) {
      return;
    }
    content.activeCellIndex = index;
    void content.scrollToCell(cell, 'center');
    cell.addClass('mlestar-highlight');
    setTimeout(() => {
      if (!cell.isDisposed) {
        cell.removeClass('mlestar-highlight');
      }
    }, 4000);
  }

  async togglePause(): Promise<void> {
    const run = this.run;
    if (!run) {
      return;
    }
    try {
      await this._api.pauseRun(run.run_id, !run.paused);
      await this._monitor?.refresh();
    } catch (error) {
      this._message.textContent = String((error as Error).message ?? error);
    }
  }

  async stop(): Promise<void> {
    const run = this.run;
    if (!run) {
      return;
    }
    try {
      await this._api.cancelRun(run.run_id);
      await this._monitor?.refresh();
    } catch (error) {
      this._message.textContent = String((error as Error).message ?? error);
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._monitor?.dispose();
    this._monitor = null;
    if (this._ticker !== null) {
      clearInterval(this._ticker);
      this._ticker = null;
    }
    if (this._cardsTimer !== null) {
      clearTimeout(this._cardsTimer);
    }
    super.dispose();
  }

  private _sectionBody(key: string): HTMLElement {
    return this._sections.get(key)!.querySelector('.mlestar-section-body') as HTMLElement;
  }

  private _render(): void {
    const monitor = this._monitor;
    if (!monitor || this.isDisposed) {
      return;
    }
    const run = monitor.run;
    this._status.dataset.status = monitor.summary.finished ?? run.status;
    this._status.dataset.phase = run.phase ?? monitor.summary.phase ?? '';
    this._status.dataset.proposals = String(monitor.proposals.length);
    const ended = this._ended();
    this._pauseButton.textContent = run.paused ? 'Resume' : 'Pause';
    this._pauseButton.disabled = ended;
    this._stopButton.disabled = ended || run.stop_requested;
    this._pauseButton.hidden = ended;
    this._stopButton.hidden = ended;
    if (monitor.error) {
      this._message.textContent = monitor.error;
    }
    this._renderProgress();
    if (monitor.summary.cursor !== this._chartsCursor) {
      this._chartsCursor = monitor.summary.cursor;
      this._renderCharts();
    }
    this._renderCards();
  }

  private _ended(): boolean {
    const monitor = this._monitor;
    return (
      monitor !== null && (isTerminal(monitor.run.status) || monitor.summary.finished !== null)
    );
  }

  private _renderProgress(): void {
    const monitor = this._monitor;
    if (!monitor || this.isDisposed) {
      return;
    }
    const run = monitor.run;
    const ended = this._ended();
    const budget = monitor.charts.budgetSeconds ?? this._timeLimit;
    let elapsed = run.elapsed;
    if (!ended && run.started) {
      elapsed = Math.max(elapsed, Date.now() / 1000 - run.started);
    }
    const phase = run.phase ?? monitor.summary.phase ?? 'starting';
    this._progress.dataset.state = ended ? 'ended' : budget ? 'running' : 'unknown';
    if (budget) {
      const share = ended ? 1 : Math.min(1, elapsed / budget);
      this._progressBar.style.width = `${(share * 100).toFixed(1)}%`;
      this._progress.setAttribute('aria-valuenow', String(Math.round(share * 100)));
      this._progressText.textContent = ended
        ? `${phase} · ${formatSeconds(elapsed)} of ${formatSeconds(budget)} used`
        : `${phase} · ${formatSeconds(elapsed)} of ${formatSeconds(budget)}`;
    } else {
      this._progressBar.style.width = ended ? '100%' : '';
      this._progressText.textContent = `${phase} · ${formatSeconds(elapsed)}`;
    }
  }

  private _renderCharts(): void {
    const monitor = this._monitor!;
    const charts = monitor.charts;
    const plan = charts.plan;
    this._plan.replaceChildren();
    if (plan && !this._ended()) {
      const title = div('mlestar-plan-title', `${plan.path ? `[${plan.path}] ` : ''}${plan.title}`);
      const text = div('mlestar-plan-text', plan.plan);
      this._plan.append(title, text);
    }
    this._sectionBody('trajectory').replaceChildren(drawTrajectory(charts));
    this._sectionBody('ablation').replaceChildren(drawAblations(charts));
    this._sectionBody('ensemble').replaceChildren(drawEnsemble(charts));
    this._sectionBody('tree').replaceChildren(drawTree(charts));
    const log = document.createElement('ul');
    log.className = 'mlestar-log';
    for (const line of monitor.summary.lines.slice(-40).reverse()) {
      const li = document.createElement('li');
      li.textContent = line;
      log.append(li);
    }
    this._sectionBody('log').replaceChildren(log);
  }

  private _scheduleCards(): void {
    if (this._cardsTimer !== null) {
      return;
    }
    this._cardsTimer = setTimeout(() => {
      this._cardsTimer = null;
      this._renderCards();
    }, 150);
  }

  private _currentSource(group: ICellGroup): string | null {
    const model = this._notebook.content.model;
    if (!model) {
      return null;
    }
    const match = findProposalCell<ICellLike>(model.cells, pendingLike(group));
    return match ? match.cell.sharedModel.getSource() : null;
  }

  private _renderCards(): void {
    const monitor = this._monitor;
    if (!monitor || this.isDisposed) {
      return;
    }
    const direction = monitor.run.direction ?? monitor.charts.direction;
    const { groups, withoutGain } = groupProposals(monitor.proposals, direction);
    const currents = groups.map(g => this._currentSource(g));
    const states = groups.map((g, i) => cardState(g, currents[i]));
    const key = JSON.stringify([
      monitor.proposals.map(p => `${p.proposal_id}:${p.decision ?? ''}`),
      states,
      currents
    ]);
    this._groups = groups;
    const pending = states.filter(s => s === 'pending' || s === 'edited').length;
    this._status.textContent = statusLine(monitor.run, monitor.summary, monitor.proposals, {
      total: groups.length,
      pending
    });
    const acceptable = states.filter(s => s === 'pending').length;
    this._acceptBest.disabled = acceptable === 0;
    this._acceptBest.hidden = groups.length === 0;
    this._acceptBest.textContent =
      acceptable > 1 ? `Accept best (${acceptable} cells)` : 'Accept best';
    const notes: string[] = [];
    if (groups.length === 0) {
      notes.push(this._ended() ? 'The run proposed no change.' : 'No proposal yet.');
    }
    if (withoutGain.length) {
      notes.push(
        `${withoutGain.length} proposal${withoutGain.length === 1 ? '' : 's'} without a score gain not shown (kept in the journal).`
      );
    }
    this._proposalsNote.textContent = notes.join(' ');
    if (key === this._cardsKey) {
      return;
    }
    this._cardsKey = key;
    this._clearCards();
    groups.forEach((group, i) => {
      this._cards.addWidget(
        new CellCard(group, states[i], currents[i], this._metric(), {
          accept: v => this.acceptVersion(group, v).then(() => undefined),
          reject: () => this.rejectGroup(group)
        })
      );
    });
  }

  private _metric(): string {
    return this._monitor?.run.metric ?? this._monitor?.charts.metric ?? 'score';
  }

  private _clearCards(): void {
    this._cards.widgets.slice().forEach(w => w.dispose());
  }

  private _notebook: NotebookPanel;
  private _api: IMlestarAPI;
  private _interval: number;
  private _monitor: RunMonitor | null = null;
  private _timeLimit: number | null = null;
  private _status: HTMLElement;
  private _progress: HTMLElement;
  private _progressBar: HTMLElement;
  private _progressText: HTMLElement;
  private _notice: HTMLElement;
  private _message: HTMLElement;
  private _plan: HTMLElement;
  private _pauseButton: HTMLButtonElement;
  private _stopButton: HTMLButtonElement;
  private _acceptBest: HTMLButtonElement;
  private _proposalsNote: HTMLElement;
  private _sections = new Map<string, HTMLElement>();
  private _cards: Panel;
  private _cardsKey = '';
  private _cardsTimer: ReturnType<typeof setTimeout> | null = null;
  private _chartsCursor = -1;
  private _ticker: ReturnType<typeof setInterval> | null = null;
  private _groups: ICellGroup[] = [];
}

/** The ids a group's cell is found by. */
function pendingLike(group: ICellGroup): { cell_id: string | null; block_id: string | null } {
  return { cell_id: group.cellId, block_id: group.blockId };
}

interface ICardActions {
  accept(version: IVersion): Promise<void>;
  reject(): Promise<void>;
}

const STATE_LABEL: { [state in CardState]: string } = {
  pending: 'pending',
  accepted: 'accepted',
  rejected: 'rejected',
  edited: 'you edited this cell'
};

/** One changed cell: the best version's diff against the cell now, its gain, plans, alternatives. */
class CellCard extends Panel {
  constructor(
    group: ICellGroup,
    state: CardState,
    current: string | null,
    metric: string,
    actions: ICardActions
  ) {
    super();
    this.addClass('mlestar-proposal');
    const version = offeredVersion(group);
    this.node.dataset.group = group.key;
    this.node.dataset.state = state;
    this.node.dataset.decision =
      state === 'accepted' ? 'accept' : state === 'rejected' ? 'reject' : 'pending';
    this.node.dataset.proposalId = version.proposals[0].proposal_id;
    this.node.dataset.proposalIds = group.versions
      .flatMap(v => v.proposals.map(p => p.proposal_id))
      .join(' ');

    const head = new Widget();
    head.addClass('mlestar-proposal-head');
    const what =
      group.kind === 'insert' ? 'New cell' : group.kind === 'delete' ? 'Remove cell' : 'Cell';
    const title = div('mlestar-proposal-title', `${what} ${group.blockId ?? ''}`.trim());
    const badge = document.createElement('span');
    badge.className = `mlestar-badge mlestar-badge-${state}`;
    badge.textContent = STATE_LABEL[state];
    title.append(' ', badge);
    const score = div('mlestar-proposal-score', scoreText(version, metric));
    head.node.append(title, score);
    const plans = document.createElement('ul');
    plans.className = 'mlestar-proposal-plan';
    for (const plan of version.plans) {
      const li = document.createElement('li');
      li.textContent = plan;
      plans.append(li);
    }
    const sources = div(
      'mlestar-proposal-source',
      `from ${version.proposals.map(p => p.proposal_id).join(', ')}`
    );
    head.node.append(plans, sources);
    this.addWidget(head);

    if (state === 'accepted') {
      this.addWidget(
        note('Written into the cell. Undo (Ctrl+Z in the cell) takes it back; this card follows.')
      );
      return;
    }
    if (state === 'rejected') {
      return;
    }
    const base = current ?? group.bases[0] ?? '';
    if (state === 'edited') {
      this.addWidget(
        note(
          "You changed this cell after the run read it. Your edit (the run's version → your cell):",
          'mlestar-compare'
        )
      );
      this.addWidget(new CellDiffView(group.bases[0] ?? '', current ?? ''));
      this.addWidget(note('The proposal against your cell:', 'mlestar-compare'));
    }
    this.addWidget(
      new CellDiffView(
        group.kind === 'insert' ? '' : base,
        group.kind === 'delete' ? '' : version.newSource
      )
    );
    const buttons = new Widget();
    buttons.addClass('mlestar-proposal-actions');
    const accept = button(
      state === 'edited' ? 'Replace my edit' : 'Accept',
      'mlestar-accept jp-mod-accept',
      () => run(() => actions.accept(version))
    );
    const reject = button('Reject', 'mlestar-reject jp-mod-reject', () =>
      run(() => actions.reject())
    );
    const run = (f: () => Promise<void>) => {
      accept.disabled = true;
      reject.disabled = true;
      void f().finally(() => {
        if (!this.isDisposed) {
          accept.disabled = false;
          reject.disabled = false;
        }
      });
    };
    buttons.node.append(accept, reject);
    this.addWidget(buttons);

    const others = group.versions.filter(v => v !== version && v.decision !== 'reject');
    if (others.length) {
      const details = document.createElement('details');
      details.className = 'mlestar-alternatives';
      const summary = document.createElement('summary');
      summary.textContent = `${others.length} other version${others.length === 1 ? '' : 's'} of this cell`;
      details.append(summary);
      for (const alt of others) {
        const row = div('mlestar-alternative');
        row.append(
          div('mlestar-proposal-score', scoreText(alt, metric)),
          div('mlestar-proposal-plan', alt.plans.join(' · ')),
          button('Accept this version', 'mlestar-accept-alt', () => run(() => actions.accept(alt)))
        );
        let diff: CellDiffView | null = null;
        details.addEventListener('toggle', () => {
          if (details.open && !diff) {
            diff = new CellDiffView(base, alt.newSource);
            Widget.attach(diff, row);
          }
        });
        details.append(row);
      }
      this.addWidget(new Widget({ node: details }));
    }
  }
}

function scoreText(version: IVersion, metric: string): string {
  const parts: string[] = [];
  if (version.scoreBefore !== null && version.scoreAfter !== null) {
    parts.push(
      `${metric} ${formatScore(version.scoreBefore)} → ${formatScore(version.scoreAfter)}`
    );
  } else if (version.scoreAfter !== null) {
    parts.push(`${metric} ${formatScore(version.scoreAfter)}`);
  }
  if (version.gain !== null) {
    parts.push(`gain ${version.gain >= 0 ? '+' : ''}${formatScore(version.gain)}`);
  }
  const n = version.proposals.length;
  if (n > 1) {
    parts.push(`proposed ${n}× (identical)`);
  }
  return parts.join(' · ');
}

function note(text: string, extraClass = ''): Widget {
  const w = new Widget();
  w.addClass('mlestar-note');
  if (extraClass) {
    w.addClass(extraClass);
  }
  w.node.textContent = text;
  return w;
}

function div(className: string, text?: string): HTMLDivElement {
  const el = document.createElement('div');
  el.className = className;
  if (text !== undefined) {
    el.textContent = text;
  }
  return el;
}

function button(label: string, className: string, onClick: () => void): HTMLButtonElement {
  const el = document.createElement('button');
  el.type = 'button';
  el.textContent = label;
  el.className = `jp-Button jp-mod-styled ${className}`;
  el.addEventListener('click', onClick);
  return el;
}
