/**
 * The MLE-STAR panel opened beside a notebook.
 *
 * Top: live status from REST (works without a kernel) and pause / stop.
 * Middle: the run's proposals, each a diff of its cell with Accept / Reject.
 * Bottom: the ipywidgets RunPanel, drawn by running `show_run(run_dir)` in the notebook's kernel.
 */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { PathExt } from '@jupyterlab/coreutils';
import { NotebookPanel } from '@jupyterlab/notebook';
import { OutputArea, OutputAreaModel } from '@jupyterlab/outputarea';
import { Panel, Widget } from '@lumino/widgets';

import { IMlestarAPI } from './api';
import { decideProposal, DecisionError } from './decisions';
import { CellDiffView } from './diff';
import { Decision, IDescribeRun, IProposal, isTerminal } from './models';
import { RunMonitor } from './monitor';
import { formatScore } from './status';

/**
 * The run folder as the notebook's kernel sees it. The server reports `run_dir` relative to its
 * root; a kernel runs in the notebook's folder, so the path is made relative to that folder.
 */
export function kernelRunDir(runDir: string, notebookPath: string): string {
  if (runDir.startsWith('/')) {
    return runDir;
  }
  const rel = PathExt.relative(`/${PathExt.dirname(notebookPath)}`, `/${runDir}`);
  return rel || '.';
}

/** Python run in the notebook's kernel to draw the widgets of a run. */
export function showRunCode(runDir: string): string {
  return [
    'try:',
    '    from mlestar_jupyter.widgets import show_run as _mlestar_show_run',
    'except ImportError as _mlestar_error:',
    '    print("MLE-STAR widgets are not available in this kernel:", _mlestar_error)',
    'else:',
    `    _mlestar_show_run(${JSON.stringify(runDir)})`
  ].join('\n');
}

/** Options of a panel. */
export interface IRunPanelOptions {
  notebook: NotebookPanel;
  api: IMlestarAPI;
  /** Poll period in ms. */
  interval?: number;
  /** Draw the ipywidgets RunPanel in the kernel (off in tests without a kernel). */
  kernelWidgets?: boolean;
}

/** The panel of one notebook; `setRun` switches it to another run. */
export class RunPanel extends Panel {
  constructor(options: IRunPanelOptions) {
    super();
    this._notebook = options.notebook;
    this._api = options.api;
    this._interval = options.interval ?? 1500;
    this._kernelWidgets = options.kernelWidgets ?? true;
    this.id = `mlestar-panel-${options.notebook.id}`;
    this.addClass('mlestar-Panel');
    this.title.label = `MLE-STAR: ${options.notebook.title.label}`;
    this.title.closable = true;

    this._header = new Widget();
    this._header.addClass('mlestar-Panel-header');
    this._status = document.createElement('div');
    this._status.className = 'mlestar-status';
    this._status.textContent = 'No MLE-STAR run for this notebook yet.';
    this._pauseButton = button('Pause', 'mlestar-pause', () => void this.togglePause());
    this._stopButton = button('Stop', 'mlestar-stop', () => void this.stop());
    const controls = document.createElement('div');
    controls.className = 'mlestar-Panel-controls';
    controls.append(this._pauseButton, this._stopButton);
    this._message = document.createElement('div');
    this._message.className = 'mlestar-message';
    this._log = document.createElement('ul');
    this._log.className = 'mlestar-log';
    this._header.node.append(this._status, controls, this._message, this._log);

    this._proposalsBox = new Panel();
    this._proposalsBox.addClass('mlestar-proposals');

    this._outputModel = new OutputAreaModel({ trusted: true });
    this._output = new OutputArea({
      model: this._outputModel,
      rendermime: this._notebook.content.rendermime
    });
    this._output.addClass('mlestar-kernel-widgets');

    this.addWidget(this._header);
    this.addWidget(this._proposalsBox);
    this.addWidget(this._output);
    this._notebook.disposed.connect(() => this.dispose());
  }

  /** The run shown, or null. */
  get run(): IDescribeRun | null {
    return this._monitor?.run ?? null;
  }

  /** The REST follower of the current run (null before `setRun`). */
  get monitor(): RunMonitor | null {
    return this._monitor;
  }

  /** Follow `run` (replacing any previous one) and draw its widgets in the kernel. */
  setRun(run: IDescribeRun): void {
    if (this._monitor?.run.run_id === run.run_id) {
      return;
    }
    this._monitor?.dispose();
    this._proposalsKey = '';
    this._proposalsBox.widgets.slice().forEach(w => w.dispose());
    this._monitor = new RunMonitor(run, this._api, this._interval);
    this._monitor.changed.connect(this._render, this);
    this._render();
    this._monitor.start();
    if (this._kernelWidgets) {
      void this.showKernelWidgets();
    }
  }

  /** Run `show_run(run_dir)` in the notebook's kernel into the panel's output area. */
  async showKernelWidgets(): Promise<void> {
    const run = this.run;
    if (!run) {
      return;
    }
    const session = this._notebook.sessionContext;
    try {
      await session.ready;
      if (!session.session?.kernel) {
        this._outputModel.clear();
        this._message.textContent =
          'Start the notebook kernel to see the run widgets; the status above is live anyway.';
        return;
      }
      this._outputModel.clear();
      const runDir = kernelRunDir(run.run_dir, this._notebook.context.path);
      await OutputArea.execute(showRunCode(runDir), this._output, session);
    } catch (error) {
      this._message.textContent = `Could not draw the run widgets in the kernel: ${String(error)}`;
    }
  }

  /** Accept or reject a proposal (accept changes the cell in the open notebook). */
  async decide(proposal: IProposal, decision: Decision): Promise<void> {
    const run = this.run;
    const model = this._notebook.content.model;
    if (!run || !model) {
      return;
    }
    try {
      const result = await decideProposal(run.run_id, proposal, decision, {
        api: this._api,
        cells: () => model.cells,
        insertCell: (index, source, blockId) =>
          model.sharedModel.insertCell(index, {
            cell_type: 'code',
            source,
            metadata: blockId ? { mlestar: { block_id: blockId, role: 'other', origin: 'mlestar' } } : {}
          }),
        deleteCell: index => model.sharedModel.deleteCell(index),
        confirmOverwrite: async () => {
          const answer = await showDialog({
            title: 'Overwrite your edit?',
            body: 'You changed this cell after the run read it. Accepting replaces your edit (undo brings it back).',
            buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: 'Overwrite' })]
          });
          return answer.button.accept;
        }
      });
      if (result.decision === 'cancelled') {
        return;
      }
      this._message.textContent = '';
      this._monitor?.markDecided(proposal.proposal_id, result.decision);
      if (result.cellIndex !== undefined) {
        this._notebook.content.activeCellIndex = result.cellIndex;
      }
    } catch (error) {
      this._message.textContent =
        error instanceof DecisionError ? error.message : `Decision failed: ${String(error)}`;
    }
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
    this._outputModel.dispose();
    super.dispose();
  }

  private _render(): void {
    const monitor = this._monitor;
    if (!monitor || this.isDisposed) {
      return;
    }
    const run = monitor.run;
    this._status.textContent = monitor.statusText;
    this._status.dataset.status = monitor.summary.finished ?? run.status;
    this._status.dataset.phase = run.phase ?? monitor.summary.phase ?? '';
    this._status.dataset.proposals = String(monitor.proposals.length);
    const ended = isTerminal(run.status) || monitor.summary.finished !== null;
    this._pauseButton.textContent = run.paused ? 'Resume' : 'Pause';
    this._pauseButton.disabled = ended;
    this._stopButton.disabled = ended || run.stop_requested;
    if (monitor.error) {
      this._message.textContent = monitor.error;
    }
    this._log.replaceChildren(
      ...monitor.summary.lines.slice(-6).map(line => {
        const li = document.createElement('li');
        li.textContent = line;
        return li;
      })
    );
    this._renderProposals(monitor.proposals);
  }

  private _renderProposals(proposals: IProposal[]): void {
    const key = proposals.map(p => `${p.proposal_id}:${p.decision ?? ''}`).join('|');
    if (key === this._proposalsKey) {
      return;
    }
    this._proposalsKey = key;
    this._proposalsBox.widgets.slice().forEach(w => w.dispose());
    // Pending first (newest first), then decided ones.
    const ordered = [
      ...proposals.filter(p => !p.decision).reverse(),
      ...proposals.filter(p => p.decision).reverse()
    ];
    for (const proposal of ordered) {
      this._proposalsBox.addWidget(new ProposalCard(proposal, d => this.decide(proposal, d)));
    }
  }

  private _notebook: NotebookPanel;
  private _api: IMlestarAPI;
  private _interval: number;
  private _kernelWidgets: boolean;
  private _monitor: RunMonitor | null = null;
  private _header: Widget;
  private _status: HTMLElement;
  private _message: HTMLElement;
  private _log: HTMLElement;
  private _pauseButton: HTMLButtonElement;
  private _stopButton: HTMLButtonElement;
  private _proposalsBox: Panel;
  private _proposalsKey = '';
  private _outputModel: OutputAreaModel;
  private _output: OutputArea;
}

/** One proposal: what changes, why, the scores, and Accept / Reject while pending. */
class ProposalCard extends Panel {
  constructor(proposal: IProposal, onDecide: (d: Decision) => Promise<void>) {
    super();
    this.addClass('mlestar-proposal');
    this.node.dataset.proposalId = proposal.proposal_id;
    this.node.dataset.decision = proposal.decision ?? 'pending';
    const head = new Widget();
    head.addClass('mlestar-proposal-head');
    const title = document.createElement('div');
    title.className = 'mlestar-proposal-title';
    const what =
      proposal.kind === 'insert'
        ? 'new cell'
        : proposal.kind === 'delete'
          ? 'removes cell'
          : 'block';
    title.textContent =
      `${proposal.proposal_id} · ${what} ${proposal.block_id ?? '?'} · ` +
      `${formatScore(proposal.score_before)} → ${formatScore(proposal.score_after)}`;
    const plan = document.createElement('div');
    plan.className = 'mlestar-proposal-plan';
    plan.textContent = proposal.plan;
    head.node.append(title, plan);
    this.addWidget(head);

    if (proposal.decision) {
      const badge = document.createElement('span');
      badge.className = `mlestar-badge mlestar-badge-${proposal.decision}`;
      badge.textContent = proposal.decision === 'accept' ? 'accepted' : 'rejected';
      title.append(' ', badge);
      return;
    }
    this.addWidget(new CellDiffView(proposal.old_source, proposal.new_source));
    const actions = new Widget();
    actions.addClass('mlestar-proposal-actions');
    const accept = button('Accept', 'mlestar-accept jp-mod-accept', () => run('accept'));
    const reject = button('Reject', 'mlestar-reject jp-mod-reject', () => run('reject'));
    const run = (d: Decision) => {
      accept.disabled = true;
      reject.disabled = true;
      void onDecide(d).finally(() => {
        if (!this.isDisposed) {
          accept.disabled = false;
          reject.disabled = false;
        }
      });
    };
    actions.node.append(accept, reject);
    this.addWidget(actions);
  }
}

function button(label: string, className: string, onClick: () => void): HTMLButtonElement {
  const el = document.createElement('button');
  el.type = 'button';
  el.textContent = label;
  el.className = `jp-Button jp-mod-styled ${className}`;
  el.addEventListener('click', onClick);
  return el;
}
