/**
 * The values of the "Run MLE-STAR" dialog: defaults from the notebook, parsing, validation.
 *
 * Pure functions only, so they are tested without a DOM.
 */
import { PathExt } from '@jupyterlab/coreutils';

import { BACKENDS, Backend, IStartRun, RunMode } from './models';

/** What the dialog's inputs hold, as typed by the user. */
export interface IRunFormRaw {
  taskDir: string;
  backend: string;
  /** LLM model name; empty: the backend's default (ignored by the offline backend). */
  model?: string;
  /** A duration: `30` (minutes), `90s`, `10m`, `1.5h`. */
  timeBudget: string;
  mode: string;
  /** Refine only this block id (from the cell context menu); absent: the whole notebook. */
  block?: string;
  /** The column to predict; empty: read from the notebook (a folder without task.json). */
  target?: string;
  /** The metric (rmse, roc_auc, MAP@3, ...); empty: read from the notebook. */
  metric?: string;
}

/** A dialog value that cannot be used; the message says what to type instead. */
export class RunFormError extends Error {
  constructor(
    readonly field: keyof IRunFormRaw,
    message: string
  ) {
    super(message);
    this.name = 'RunFormError';
  }
}

/**
 * The task folder to offer for a notebook: `metadata.mlestar.task` resolved against the
 * notebook's folder when set, else the notebook's folder. Paths are server-root relative;
 * the root itself is `.`.
 */
export function defaultTaskDir(notebookPath: string, metadata: unknown): string {
  const folder = PathExt.dirname(notebookPath);
  const task = taskFromMetadata(metadata);
  if (task === null) {
    return folder || '.';
  }
  if (task.startsWith('/')) {
    return task;
  }
  const joined = PathExt.normalize(PathExt.join(folder, task));
  return joined || '.';
}

/** `metadata.mlestar.task` when it is a non-empty string, else null. */
export function taskFromMetadata(metadata: unknown): string | null {
  if (!metadata || typeof metadata !== 'object') {
    return null;
  }
  const mlestar = (metadata as { [key: string]: unknown })['mlestar'];
  if (!mlestar || typeof mlestar !== 'object') {
    return null;
  }
  const task = (mlestar as { [key: string]: unknown })['task'];
  return typeof task === 'string' && task.trim() ? task.trim() : null;
}

const UNIT_SECONDS: { [unit: string]: number } = {
  s: 1,
  sec: 1,
  m: 60,
  min: 60,
  h: 3600
};

/** Seconds in a duration: a bare number is minutes; `s`, `m`/`min`, `h` suffixes are accepted. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h)?\s*$/i.exec(text);
  if (!match) {
    throw new RunFormError(
      'timeBudget',
      `Time budget "${text}" is not a duration: type minutes (30) or 90s, 10m, 1.5h.`
    );
  }
  const unit = (match[2] ?? 'm').toLowerCase();
  const seconds = Math.round(parseFloat(match[1]) * UNIT_SECONDS[unit]);
  if (seconds < 10) {
    throw new RunFormError(
      'timeBudget',
      `Time budget "${text}" is too short: give the agent at least 10 seconds.`
    );
  }
  return seconds;
}

/** Check and convert the dialog's values into the body of `POST /mlestar/runs`. */
export function parseRunForm(raw: IRunFormRaw, notebookPath: string): IStartRun {
  const taskDir = raw.taskDir.trim();
  if (!taskDir) {
    throw new RunFormError(
      'taskDir',
      'Task folder is empty: give the folder holding the task (task.json or description.md).'
    );
  }
  if (!(BACKENDS as readonly string[]).includes(raw.backend)) {
    throw new RunFormError(
      'backend',
      `Backend "${raw.backend}" is unknown: pick one of ${BACKENDS.join(', ')}.`
    );
  }
  if (raw.mode !== 'autopilot' && raw.mode !== 'step') {
    throw new RunFormError('mode', `Mode "${raw.mode}" is unknown: pick autopilot or step.`);
  }
  const model = (raw.model ?? '').trim();
  if (model && !/^[A-Za-z0-9_.:/@+-]{1,200}$/.test(model)) {
    throw new RunFormError(
      'model',
      `Model "${model}" is not a model name: use letters, digits and . _ - : / @ + only ` +
        '(e.g. gemini-2.5-flash or qwen2.5-coder:1.5b), or leave it empty for the default.'
    );
  }
  const body: IStartRun = {
    task_dir: taskDir,
    notebook_path: notebookPath,
    backend: raw.backend as Backend,
    time_limit: parseDuration(raw.timeBudget),
    mode: raw.mode as RunMode
  };
  if (model && raw.backend !== 'offline') {
    body.model = model;
  }
  if (raw.block) {
    body.block = raw.block;
  }
  const target = (raw.target ?? '').trim();
  if (target) {
    body.target = target;
  }
  const metric = (raw.metric ?? '').trim();
  if (metric) {
    body.metric = metric;
  }
  return body;
}

/**
 * The block id of each code cell as the agent numbers them (`SolutionNotebook` on load):
 * a cell keeps its `metadata.mlestar.block_id` (the first of duplicates keeps it), the others
 * get `b1`, `b2`, ... in order, skipping ids in use. Non-code cells get null.
 */
export function agentBlockIds(
  cells: { type: string; blockId: string | null }[]
): (string | null)[] {
  const used = new Set<string>();
  const owner = new Map<string, number>();
  cells.forEach((c, i) => {
    if (c.type === 'code' && c.blockId && !owner.has(c.blockId)) {
      owner.set(c.blockId, i);
      used.add(c.blockId);
    }
  });
  let n = 1;
  return cells.map((c, i) => {
    if (c.type !== 'code') {
      return null;
    }
    if (c.blockId && owner.get(c.blockId) === i) {
      return c.blockId;
    }
    while (used.has(`b${n}`)) {
      n++;
    }
    used.add(`b${n}`);
    return `b${n}`;
  });
}

/** One entry of a folder listing (the Jupyter contents API's `name` and `type`). */
export interface IListedItem {
  name: string;
  type: string;
}

/**
 * Whether a folder describes its own task, as the server reads it (`has_task_description`):
 * a task.json (or task.yaml/.yml), MLE-bench's `prepared/`, `description.md`/`.txt`, or a README.md beside
 * `input/`. Such a folder names its target and metric itself; only a folder without one (a
 * Kaggle download beside the notebook) takes them from the dialog.
 */
export function describesItsTask(items: IListedItem[]): boolean {
  const has = (name: string, type?: string) =>
    items.some(i => i.name === name && (type === undefined || i.type === type));
  return (
    has('task.json') ||
    has('task.yaml') ||
    has('task.yml') ||
    has('prepared', 'directory') ||
    has('description.md') ||
    has('description.txt') ||
    (has('README.md') && has('input', 'directory'))
  );
}

/**
 * `describesItsTask` for the folder `dir` (server-root relative), listed by `list`; null when
 * it cannot be listed (no such folder yet, no permission): the dialog then offers the fields.
 */
export async function folderDescribesTask(
  list: (dir: string) => Promise<IListedItem[]>,
  dir: string
): Promise<boolean | null> {
  try {
    return describesItsTask(await list(dir.trim() || '.'));
  } catch {
    return null;
  }
}
