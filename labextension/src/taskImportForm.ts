/**
 * The logic of the "New task from competition page" dialog, without DOM: the shapes of
 * `POST /mlestar/tasks/import` (mirroring the pydantic `ImportTask` / `ImportedTask` of
 * `mlestar_jupyter/server/task_import.py`), building the request from what was typed, the rows
 * of extracted fields with the guessed ones marked, and where each reported problem belongs.
 */
import { IFieldProblem } from './api';

/** Backends the import endpoint accepts (`ImportTask.backend`). */
export const IMPORT_BACKENDS = ['offline', 'gemini', 'openai', 'replay'] as const;
export type ImportBackend = (typeof IMPORT_BACKENDS)[number];

/** Body of `POST /mlestar/tasks/import` (`ImportTask`). */
export interface IImportTask {
  /** Saved competition pages (root-relative paths). */
  sources: string[];
  /** Downloaded folders or archives (root-relative paths). */
  data: string[];
  /** An MLE-bench competition folder instead of pages and data. */
  from_mlebench?: string;
  /** The task folder to write. */
  out: string;
  backend: ImportBackend;
  model?: string;
  /** Correction: the target column. */
  target?: string;
  /** Correction: the id column. */
  id_column?: string;
  /** Check and show; write no task.json. */
  preview: boolean;
  /** Replace an existing task.json. */
  force: boolean;
}

/** One part of `data_information` (names relative to `input/`). */
export interface IDataPart {
  data_location: string;
  data_description: string;
}

/** The task.json the import extracts (`TaskSpec.to_json()`). */
export interface ITaskSpec {
  task_type: string;
  goal_description: string;
  metric: { metric_name: string; direction: string; metric_formula?: string };
  target_col: string | string[];
  id_col?: string;
  data_information: {
    data_type: string;
    train: IDataPart;
    test: IDataPart;
    inference?: IDataPart;
  };
  output_format: string;
  special_instructions: string;
  id?: string;
  import?: { [key: string]: unknown };
}

/** Answer of `POST /mlestar/tasks/import` (`ImportedTask`): 200 for a preview, 201 written. */
export interface IImportedTask {
  /** Root-relative task folder. */
  task_dir: string;
  written: boolean;
  task: ITaskSpec;
  /** Field (e.g. `metric.direction`) -> why it was guessed rather than read. */
  guessed: { [field: string]: string };
}

/** What the dialog's inputs hold, as typed (one path a line in `sources` and `data`). */
export interface IImportFormRaw {
  sources: string;
  data: string;
  mlebench: string;
  out: string;
  backend: string;
  model: string;
  target: string;
  idColumn: string;
  force: boolean;
}

/** Inputs of the dialog a problem can be shown beside. */
export type InputSlot =
  'sources' | 'data' | 'mlebench' | 'out' | 'backend' | 'model' | 'target' | 'id_column' | 'force';

/** Empty form: the default backend, everything else blank. */
export function emptyImportForm(backend = 'offline'): IImportFormRaw {
  return {
    sources: '',
    data: '',
    mlebench: '',
    out: '',
    backend,
    model: '',
    target: '',
    idColumn: '',
    force: false
  };
}

/** The typed values do not make a request; `problems` names each bad input. */
export class ImportFormError extends Error {
  constructor(readonly problems: IFieldProblem[]) {
    super(problems.map(p => `${p.field}: ${p.message}`).join('; '));
    this.name = 'ImportFormError';
  }
}

// A column name is any text without control characters: matching them is the point here.
// eslint-disable-next-line no-control-regex
const COLUMN = /^[^\x00-\x1f]{1,200}$/;
const MODEL = /^[A-Za-z0-9_.:/@+-]+$/;
const PAGE_EXT = /\.(html?|mhtml|mht|md|markdown|txt)$/i;

/** Paths typed one a line (commas are kept: a file name may hold one), trimmed, deduplicated. */
export function splitPaths(text: string): string[] {
  const seen = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    const p = normalisePath(line);
    if (p) {
      seen.add(p);
    }
  }
  return [...seen];
}

/** A root-relative path as the server wants it: `/`-separated, no leading `/` or `./`. */
export function normalisePath(path: string): string {
  return path
    .trim()
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/^\/+/, '')
    .replace(/\/+$/, '');
}

/** Whether a file name looks like a saved page (else it is taken for data). */
export function isPagePath(path: string): boolean {
  return PAGE_EXT.test(path);
}

/** A corrected column, or undefined when the input is blank or repeats the extraction. */
export function correction(typed: string, extracted: string | undefined): string | undefined {
  const value = typed.trim();
  if (!value || value === (extracted ?? '').trim()) {
    return undefined;
  }
  return value;
}

function kept(typed: string, pinned: string | undefined): string | undefined {
  return pinned !== undefined && typed.trim() === pinned ? pinned : undefined;
}

/** The target column(s) of a task.json as one string (`a, b` for several). */
export function targetText(task: ITaskSpec | null | undefined): string {
  if (!task) {
    return '';
  }
  return Array.isArray(task.target_col) ? task.target_col.join(', ') : task.target_col;
}

/** Corrections a request carried (`target`, `id_column`), to send again with the write. */
export interface ICorrections {
  target?: string;
  id_column?: string;
}

/**
 * The body of `POST /mlestar/tasks/import` for what was typed. `extracted` is the last preview:
 * a target or id column equal to its extraction is not sent as a correction, unless `pinned`
 * (the corrections that preview was made with) holds it, so a correction survives into the write.
 *
 * @throws ImportFormError naming each input to fix.
 */
export function buildImportRequest(
  raw: IImportFormRaw,
  preview: boolean,
  extracted: ITaskSpec | null = null,
  pinned: ICorrections = {}
): IImportTask {
  const problems: IFieldProblem[] = [];
  const sources = splitPaths(raw.sources);
  const data = splitPaths(raw.data);
  const mlebench = normalisePath(raw.mlebench);
  const out = normalisePath(raw.out);
  if (mlebench) {
    if (sources.length || data.length) {
      problems.push({
        field: 'mlebench',
        message: 'an MLE-bench folder is imported alone: clear the pages and data, or this folder'
      });
    }
  } else {
    if (!sources.length) {
      problems.push({
        field: 'sources',
        message:
          'add at least one saved competition page (.html, .md or .txt), one path a line, ' +
          'relative to the Jupyter root'
      });
    }
    if (!data.length) {
      problems.push({
        field: 'data',
        message: 'add the downloaded data: a folder or an archive (.zip, .tar.gz, .7z)'
      });
    }
  }
  if (!out) {
    problems.push({
      field: 'out',
      message: 'name the task folder to write, e.g. tasks/my-competition'
    });
  }
  const backend = raw.backend.trim() || 'offline';
  if (!(IMPORT_BACKENDS as readonly string[]).includes(backend)) {
    problems.push({ field: 'backend', message: `pick one of ${IMPORT_BACKENDS.join(', ')}` });
  }
  const model = raw.model.trim();
  if (model && (model.length > 200 || !MODEL.test(model))) {
    problems.push({
      field: 'model',
      message: 'a model name has only letters, digits and _ . : / @ + -'
    });
  }
  const target =
    correction(raw.target, extracted ? targetText(extracted) : undefined) ??
    kept(raw.target, pinned.target);
  const idColumn =
    correction(raw.idColumn, extracted?.id_col) ?? kept(raw.idColumn, pinned.id_column);
  for (const [field, value] of [
    ['target', target],
    ['id_column', idColumn]
  ] as const) {
    if (value !== undefined && !COLUMN.test(value)) {
      problems.push({ field, message: 'a column name of at most 200 characters, on one line' });
    }
  }
  if (problems.length) {
    throw new ImportFormError(problems);
  }
  const request: IImportTask = {
    sources: mlebench ? [] : sources,
    data: mlebench ? [] : data,
    out,
    backend: backend as ImportBackend,
    preview,
    force: raw.force
  };
  if (mlebench) {
    request.from_mlebench = mlebench;
  }
  if (model) {
    request.model = model;
  }
  if (target !== undefined) {
    request.target = target;
  }
  if (idColumn !== undefined) {
    request.id_column = idColumn;
  }
  return request;
}

/**
 * What a preview depends on: a change to any of these makes a shown preview stale. The
 * corrections (target, id column) and `force` are left out: they correct the preview.
 */
export function previewKey(raw: IImportFormRaw): string {
  return JSON.stringify([
    splitPaths(raw.sources),
    splitPaths(raw.data),
    normalisePath(raw.mlebench),
    normalisePath(raw.out),
    raw.backend.trim(),
    raw.model.trim()
  ]);
}

/** One extracted field as the dialog shows it. */
export interface IFieldRow {
  /** Stable key (the task.json path of the field), also the row's `data-field`. */
  key: string;
  label: string;
  value: string;
  /** Why it was guessed (all reasons, `; `-joined), or null when read from the pages. */
  guessed: string | null;
  /** The request field that corrects it, for the rows the endpoint accepts corrections of. */
  editable: 'target' | 'id_column' | null;
}

/** Each row: its key, label, and the names the server uses for it (guesses and problems). */
const ROWS: { key: string; label: string; aliases: string[] }[] = [
  { key: 'task_type', label: 'Task type', aliases: ['task_type'] },
  { key: 'goal_description', label: 'Goal', aliases: ['goal_description'] },
  { key: 'metric.metric_name', label: 'Metric', aliases: ['metric.metric_name', 'metric'] },
  { key: 'metric.direction', label: 'Direction', aliases: ['metric.direction', 'metric'] },
  { key: 'target_col', label: 'Target', aliases: ['target_col', 'target'] },
  { key: 'id_col', label: 'Id column', aliases: ['id_col', 'id_column'] },
  {
    key: 'data_information.data_type',
    label: 'Data type',
    aliases: ['data_information.data_type', 'data_type']
  },
  {
    key: 'data_information.train.data_location',
    label: 'Training data',
    aliases: ['data_information.train.data_location', 'train_files', 'train_description']
  },
  {
    key: 'data_information.test.data_location',
    label: 'Test data',
    aliases: ['data_information.test.data_location', 'test_files', 'test_description']
  },
  {
    key: 'output_format',
    label: 'Output format',
    aliases: ['output_format', 'sample_submission']
  },
  {
    key: 'special_instructions',
    label: 'Special instructions',
    aliases: ['special_instructions']
  }
];

/** Keys of the extracted-field rows, in the order shown. */
export const ROW_KEYS = ROWS.map(r => r.key);

function rowValue(key: string, task: ITaskSpec | null): string {
  if (!task) {
    return '';
  }
  const info = task.data_information;
  switch (key) {
    case 'task_type':
      return task.task_type;
    case 'goal_description':
      return task.goal_description;
    case 'metric.metric_name':
      return task.metric.metric_formula
        ? `${task.metric.metric_name}  (${task.metric.metric_formula})`
        : task.metric.metric_name;
    case 'metric.direction':
      return task.metric.direction;
    case 'target_col':
      return targetText(task);
    case 'id_col':
      return task.id_col ?? '';
    case 'data_information.data_type':
      return info.data_type;
    case 'data_information.train.data_location':
      return partText(info.train);
    case 'data_information.test.data_location':
      return partText(info.test);
    case 'output_format':
      return task.output_format;
    case 'special_instructions':
      return task.special_instructions;
  }
  return '';
}

function partText(part: IDataPart | undefined): string {
  if (!part) {
    return '';
  }
  const where = part.data_location || '(none)';
  return part.data_description ? `${where}: ${part.data_description}` : where;
}

/**
 * The rows of the extracted fields, guessed ones marked with their reasons. With no preview
 * (`imported` null: the extraction failed) the rows are empty but the target and id column stay
 * editable, so a correction can be typed next to the problem.
 */
export function extractedRows(imported: IImportedTask | null): IFieldRow[] {
  const task = imported?.task ?? null;
  const guessed = imported?.guessed ?? {};
  return ROWS.map(r => {
    const reasons = [...new Set(r.aliases.map(a => guessed[a]).filter(Boolean))];
    return {
      key: r.key,
      label: r.label,
      value: rowValue(r.key, task),
      guessed: reasons.length ? reasons.join('; ') : null,
      editable: r.key === 'target_col' ? 'target' : r.key === 'id_col' ? 'id_column' : null
    };
  });
}

/** Where the server's (or the form's) field names are shown: an input, a row, or `general`. */
export function problemSlot(field: string): InputSlot | string {
  const head = field.replace(/^--/, '').split('.')[0];
  switch (head) {
    case 'sources':
    case 'source':
      return 'sources';
    case 'data':
      return field.startsWith('data_information') ? rowFor(field) : 'data';
    case 'from_mlebench':
    case 'from-mlebench':
    case 'mlebench':
      return 'mlebench';
    case 'out':
      return 'out';
    case 'backend':
    case 'llm':
      return 'backend';
    case 'model':
      return 'model';
    case 'force':
      return 'force';
    case 'target':
    case 'target_col':
      return 'target';
    case 'id_column':
    case 'id_col':
      return 'id_column';
  }
  return rowFor(field);
}

function rowFor(field: string): string {
  const row = ROWS.find(r => r.aliases.includes(field) || r.key === field);
  return row ? row.key : 'general';
}

/** Problems grouped by where they are shown (see `problemSlot`), in the order reported. */
export function problemsBySlot(problems: IFieldProblem[]): Map<string, string[]> {
  const slots = new Map<string, string[]>();
  for (const p of problems) {
    const slot = problemSlot(p.field);
    const text = slot === 'general' ? `${p.field}: ${p.message}` : p.message;
    slots.set(slot, [...(slots.get(slot) ?? []), text]);
  }
  return slots;
}

/** Labels of the rows whose value differs between the preview and what was written. */
export function changedFields(before: IImportedTask, after: IImportedTask): string[] {
  const a = extractedRows(before);
  const b = extractedRows(after);
  return a.filter((row, i) => row.value !== b[i].value).map(row => row.label);
}

/** Where dropped files are uploaded: beside the task folder, `<out>-pages` or `<out>-download`. */
export function uploadFolder(out: string, page: boolean): string {
  const base = normalisePath(out) || 'imported-task';
  return page ? `${base}-pages` : `${base}-download`;
}

/** Add paths to a one-a-line text, skipping those already there. */
export function appendPaths(text: string, paths: string[]): string {
  return [...new Set([...splitPaths(text), ...paths.map(normalisePath).filter(Boolean)])].join(
    '\n'
  );
}
