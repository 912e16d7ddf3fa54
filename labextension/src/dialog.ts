/**
 * The "Run MLE-STAR" dialog: task folder, backend and model, time budget, autopilot or step-through.
 */
import { Dialog, showDialog, showErrorMessage } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { folderDescribesTask, IListedItem, IRunFormRaw, parseRunForm, RunFormError } from './form';
import { BACKENDS, IStartRun } from './models';

/** Lists a server-root relative folder (the Jupyter contents API). */
export type FolderLister = (dir: string) => Promise<IListedItem[]>;

/**
 * The dialog's form; `getValue()` returns the raw strings, `parseRunForm` checks them.
 *
 * The target and metric fields only apply to a folder without a task description (the task is
 * then read from the notebook): they sit folded under their own heading, and with `list` given
 * they are hidden, with a note saying why, while the task folder describes its task.
 */
export class RunFormBody extends Widget implements Dialog.IBodyWidget<IRunFormRaw> {
  constructor(initial: IRunFormRaw, list?: FolderLister) {
    super({ node: document.createElement('form') });
    this.addClass('mlestar-RunForm');
    const form = this.node as HTMLFormElement;
    form.addEventListener('submit', e => e.preventDefault());

    this._taskDir = input('text', initial.taskDir, 'mlestar-taskDir');
    this._taskDir.title =
      'The folder holding task.json (or description.md and input/). A folder without ' +
      'one works too: the task is then read from this notebook (the data files it reads, ' +
      'the column it predicts, the metric it computes).';
    this._backend = document.createElement('select');
    this._backend.name = 'mlestar-backend';
    for (const backend of BACKENDS) {
      const option = document.createElement('option');
      option.value = backend;
      option.textContent = backend;
      this._backend.appendChild(option);
    }
    this._backend.value = initial.backend;
    this._model = input('text', initial.model ?? '', 'mlestar-model');
    this._model.placeholder = "the backend's default (e.g. gemini-2.5-flash)";
    this._timeBudget = input('text', initial.timeBudget, 'mlestar-timeBudget');
    this._timeBudget.placeholder = '30';
    this._timeBudget.size = 8;

    this._autopilot = input('radio', 'autopilot', 'mlestar-mode');
    this._step = input('radio', 'step', 'mlestar-mode');
    this._autopilot.checked = initial.mode !== 'step';
    this._step.checked = initial.mode === 'step';
    const budget = document.createElement('span');
    budget.className = 'mlestar-RunForm-budget';
    const unit = document.createElement('span');
    unit.className = 'mlestar-RunForm-unit';
    unit.textContent = 'minutes (or 90s, 10m, 1h)';
    budget.append(this._timeBudget, unit);
    const mode = modeRow(this._autopilot, this._step);
    mode.addEventListener('change', () => syncChoices(mode));
    syncChoices(mode);
    if (initial.block) {
      const scope = document.createElement('div');
      scope.className = 'mlestar-RunForm-scope';
      scope.textContent = `Refines only cell ${initial.block} (the other cells stay as they are).`;
      form.append(scope);
    }
    // what a run reads from the notebook when the task folder has no task.json, corrected
    this._target = input('text', initial.target ?? '', 'mlestar-target');
    this._target.placeholder = 'read from the notebook';
    this._target.title =
      'Only for a folder without task.json: the column to predict, when the one read from ' +
      'the notebook is wrong (a task.json names its own).';
    this._metric = input('text', initial.metric ?? '', 'mlestar-metric');
    this._metric.placeholder = 'read from the notebook (e.g. rmse, roc_auc, MAP@3)';
    this._metric.title =
      'Only for a folder without task.json: the metric, when the one read from the notebook ' +
      'is wrong (a task.json names its own).';
    this._notebookTask = document.createElement('details');
    this._notebookTask.className = 'mlestar-RunForm-notebookTask';
    const summary = document.createElement('summary');
    summary.textContent = 'Folder without task.json: correct the target or the metric';
    this._notebookTask.append(
      summary,
      row('Target column', this._target),
      row('Metric', this._metric)
    );
    this._notebookTask.open = Boolean(initial.target || initial.metric);
    this._taskNote = document.createElement('div');
    this._taskNote.className = 'mlestar-RunForm-taskNote';
    this._taskNote.textContent =
      'This folder describes its task (task.json or description.md): the target column and ' +
      'the metric come from it.';
    this._taskNote.hidden = true;
    form.append(
      row('Task folder', this._taskDir),
      row('Backend', this._backend),
      row('Model', this._model),
      row('Time budget', budget),
      mode,
      this._notebookTask,
      this._taskNote
    );
    this._block = initial.block;
    this._list = list;
    let pending: number | undefined;
    this._taskDir.addEventListener('input', () => {
      window.clearTimeout(pending);
      pending = window.setTimeout(() => void this.checkTaskFolder(), 300);
    });
    this._taskDir.addEventListener('change', () => void this.checkTaskFolder());
    this.ready = this.checkTaskFolder();
  }

  /** Resolves once the first look at the task folder is done (for tests). */
  readonly ready: Promise<void>;

  /** Whether the task folder, as typed, describes its task (then target and metric are hidden). */
  get folderDescribesTask(): boolean {
    return this._described;
  }

  /** Look at the typed task folder and show or hide the target and metric fields. */
  async checkTaskFolder(): Promise<void> {
    if (!this._list) {
      return;
    }
    const dir = this._taskDir.value;
    const described = await folderDescribesTask(this._list, dir);
    if (dir !== this._taskDir.value) {
      return; // typed on since: a later check decides
    }
    this._described = described === true;
    this._notebookTask.hidden = this._described;
    this._taskNote.hidden = !this._described;
  }

  getValue(): IRunFormRaw {
    return {
      taskDir: this._taskDir.value,
      backend: this._backend.value,
      model: this._model.value,
      timeBudget: this._timeBudget.value,
      mode: this._step.checked ? 'step' : 'autopilot',
      block: this._block,
      // hidden fields do not apply (the folder names its own): a value left in them is not sent
      target: this._described ? '' : this._target.value,
      metric: this._described ? '' : this._metric.value
    };
  }

  private _block: string | undefined;
  private _list: FolderLister | undefined;
  private _described = false;
  private _notebookTask: HTMLDetailsElement;
  private _taskNote: HTMLDivElement;

  private _taskDir: HTMLInputElement;
  private _backend: HTMLSelectElement;
  private _model: HTMLInputElement;
  private _timeBudget: HTMLInputElement;
  private _target: HTMLInputElement;
  private _metric: HTMLInputElement;
  private _autopilot: HTMLInputElement;
  private _step: HTMLInputElement;
}

function input(type: string, value: string, name: string): HTMLInputElement {
  const el = document.createElement('input');
  el.type = type;
  el.value = value;
  el.name = name;
  if (type === 'text') {
    el.className = 'jp-mod-styled';
  }
  return el;
}

function row(label: string, control: HTMLElement): HTMLElement {
  const el = document.createElement('label');
  el.className = 'mlestar-RunForm-row';
  const span = document.createElement('span');
  span.textContent = label;
  el.append(span, control);
  return el;
}

function modeRow(autopilot: HTMLInputElement, step: HTMLInputElement): HTMLElement {
  const el = document.createElement('fieldset');
  el.className = 'mlestar-RunForm-row';
  const legend = document.createElement('legend');
  legend.textContent = 'Mode';
  const a = choice(autopilot, 'Autopilot', 'run on; review the proposals later');
  const s = choice(step, 'Step-through', 'wait for my decision on each proposal');
  el.append(legend, a, s);
  return el;
}

/** A radio as a labelled box whose selected state shows (border, background, a dot). */
function choice(radio: HTMLInputElement, title: string, detail: string): HTMLElement {
  const label = document.createElement('label');
  label.className = 'mlestar-choice';
  const text = document.createElement('span');
  text.className = 'mlestar-choice-text';
  const strong = document.createElement('b');
  strong.textContent = title;
  const small = document.createElement('small');
  small.textContent = detail;
  text.append(strong, small);
  label.append(radio, text);
  return label;
}

/** Mark the label of the checked radio (`data-checked`), for the CSS and for tests. */
function syncChoices(group: HTMLElement): void {
  group.querySelectorAll('label.mlestar-choice').forEach(label => {
    const radio = label.querySelector('input') as HTMLInputElement | null;
    (label as HTMLElement).dataset.checked = radio?.checked ? 'true' : 'false';
  });
}

/**
 * Ask for the run's settings; resolves the body of `POST /mlestar/runs`, or null on cancel.
 * Invalid values show their error and reopen the dialog with what was typed.
 */
export async function askRunSettings(
  initial: IRunFormRaw,
  notebookPath: string,
  list?: FolderLister
): Promise<IStartRun | null> {
  let values = initial;
  for (;;) {
    const result = await showDialog<IRunFormRaw>({
      title: 'Run MLE-STAR on this notebook',
      body: new RunFormBody(values, list),
      buttons: [Dialog.cancelButton(), Dialog.okButton({ label: 'Run' })],
      focusNodeSelector: 'input[name="mlestar-taskDir"]'
    });
    if (!result.button.accept || result.value === null) {
      return null;
    }
    values = result.value;
    try {
      return parseRunForm(values, notebookPath);
    } catch (error) {
      if (error instanceof RunFormError) {
        await showErrorMessage('MLE-STAR: check the settings', error.message);
        continue;
      }
      throw error;
    }
  }
}
