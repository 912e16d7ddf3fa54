/**
 * The "New task from competition page" dialog: saved pages + downloaded data -> a task folder,
 * through `POST /mlestar/tasks/import` (see docs/task-import.md).
 *
 * "Extract" posts a preview and shows the extracted fields, each guessed one marked with its
 * reason; the target and id column can be corrected there. "Create task" writes the folder
 * (after a fresh preview: a changed input first extracts again). Problems the server reports
 * (a 400 listing each field) are shown next to the field they concern.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { Dialog, ICommandPalette, Notification, showDialog } from '@jupyterlab/apputils';
import { LabIcon } from '@jupyterlab/ui-components';
import { Contents } from '@jupyterlab/services';
import type { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';

import { IFieldProblem, MlestarAPIError, requestAPI } from './api';
import {
  appendPaths,
  buildImportRequest,
  emptyImportForm,
  extractedRows,
  ICorrections,
  IImportedTask,
  IImportFormRaw,
  IImportTask,
  IMPORT_BACKENDS,
  ImportFormError,
  isPagePath,
  previewKey,
  problemsBySlot,
  targetText,
  uploadFolder,
  changedFields
} from './taskImportForm';

/** The endpoint, typed; an interface so tests can pass a fake. */
export interface ITaskImportAPI {
  importTask(body: IImportTask): Promise<IImportedTask>;
}

/** The real client, through the one `requestAPI`. */
export const TaskImportAPI: ITaskImportAPI = {
  importTask(body: IImportTask): Promise<IImportedTask> {
    return requestAPI<IImportedTask>('tasks/import', { method: 'POST', body });
  }
};

/** Uploads one dropped file into a root-relative folder; resolves its root-relative path. */
export type Uploader = (file: File, folder: string) => Promise<string>;

/** The dialog's state between its openings: inputs, the last preview, the problems shown. */
export interface ITaskImportState {
  raw: IImportFormRaw;
  preview: IImportedTask | null;
  /** `previewKey` of the inputs the preview was made from. */
  previewOf: string | null;
  /** The corrections the preview was made with (sent again with the write). */
  corrections: ICorrections;
  problems: IFieldProblem[];
  /** A line above the fields (what happened, what to do next). */
  note: string;
}

/** A fresh state for the given initial inputs. */
export function initialImportState(raw: Partial<IImportFormRaw> = {}): ITaskImportState {
  return {
    raw: { ...emptyImportForm(), ...raw },
    preview: null,
    previewOf: null,
    corrections: {},
    problems: [],
    note: ''
  };
}

/** Whether the shown preview was made from the current inputs. */
export function previewIsCurrent(state: ITaskImportState): boolean {
  return state.preview !== null && state.previewOf === previewKey(state.raw);
}

/** Problems of a failed call: the server's `fields`, else its message as a general problem. */
export function problemsOf(error: unknown): IFieldProblem[] {
  if (error instanceof ImportFormError) {
    return error.problems;
  }
  if (error instanceof MlestarAPIError) {
    return error.fields.length ? error.fields : [{ field: 'general', message: error.message }];
  }
  return [{ field: 'general', message: error instanceof Error ? error.message : String(error) }];
}

/**
 * Run one preview of `state`'s inputs: a new state holding the extraction (or the problems).
 * The target and id inputs take the extracted values, so what is shown is what gets written.
 */
export async function runPreview(
  api: ITaskImportAPI,
  state: ITaskImportState
): Promise<ITaskImportState> {
  const raw = { ...state.raw };
  const key = previewKey(raw);
  try {
    const request = buildImportRequest(raw, true, state.preview?.task ?? null, state.corrections);
    const preview = await api.importTask(request);
    raw.target = request.target ?? targetText(preview.task);
    raw.idColumn = request.id_column ?? preview.task.id_col ?? '';
    const corrections: ICorrections = {};
    if (request.target !== undefined) {
      corrections.target = request.target;
    }
    if (request.id_column !== undefined) {
      corrections.id_column = request.id_column;
    }
    const guessed = Object.keys(preview.guessed).length;
    return {
      raw,
      preview,
      previewOf: key,
      corrections,
      problems: [],
      note:
        `Extracted into ${preview.task_dir} (nothing written yet)` +
        (guessed ? `; ${guessed} field(s) guessed, marked below: check them` : '') +
        '. Correct the target or id column if needed, then Create task.'
    };
  } catch (error) {
    return {
      raw,
      preview: null,
      previewOf: null,
      corrections: state.corrections,
      problems: problemsOf(error),
      note: 'Nothing was extracted: fix what is marked, then Extract again.'
    };
  }
}

/** Write the task folder for `state` (whose preview is current); a 400 becomes problems. */
export async function runWrite(
  api: ITaskImportAPI,
  state: ITaskImportState
): Promise<{ state: ITaskImportState; written: IImportedTask | null }> {
  try {
    const request = buildImportRequest(
      state.raw,
      false,
      state.preview?.task ?? null,
      state.corrections
    );
    const written = await api.importTask(request);
    return { state: { ...state, problems: [], note: '' }, written };
  } catch (error) {
    return {
      state: {
        ...state,
        problems: problemsOf(error),
        note: 'The task folder was not written: fix what is marked, then Create task again.'
      },
      written: null
    };
  }
}

/** The dialog's body: the inputs, an Extract button, the extracted fields and the problems. */
export class TaskImportBody extends Widget implements Dialog.IBodyWidget<ITaskImportState> {
  constructor(
    state: ITaskImportState,
    private readonly _api: ITaskImportAPI,
    private readonly _upload: Uploader | null = null
  ) {
    super({ node: document.createElement('form') });
    this.addClass('mlestar-TaskImport');
    this._state = state;
    const form = this.node as HTMLFormElement;
    form.addEventListener('submit', e => e.preventDefault());

    this._sources = textarea('mlestar-import-sources', state.raw.sources);
    this._sources.placeholder = 'downloads/overview.html\ndownloads/evaluation.md';
    this._data = textarea('mlestar-import-data', state.raw.data);
    this._data.placeholder = 'downloads/competition.zip';
    this._mlebench = textInput('mlestar-import-mlebench', state.raw.mlebench);
    this._mlebench.placeholder = 'instead of pages and data: an MLE-bench competition folder';
    this._out = textInput('mlestar-import-out', state.raw.out);
    this._out.placeholder = 'tasks/my-competition';
    this._backend = document.createElement('select');
    this._backend.name = 'mlestar-import-backend';
    for (const backend of IMPORT_BACKENDS) {
      const option = document.createElement('option');
      option.value = backend;
      option.textContent = backend === 'offline' ? 'offline (no LLM, heuristics)' : backend;
      this._backend.appendChild(option);
    }
    this._backend.value = state.raw.backend;
    this._model = textInput('mlestar-import-model', state.raw.model);
    this._model.placeholder = "the backend's default";
    this._force = document.createElement('input');
    this._force.type = 'checkbox';
    this._force.name = 'mlestar-import-force';
    this._force.checked = state.raw.force;
    this._target = textInput('mlestar-import-target', state.raw.target);
    this._idColumn = textInput('mlestar-import-id', state.raw.idColumn);

    this._extract = document.createElement('button');
    this._extract.type = 'button';
    this._extract.className = 'jp-mod-styled jp-mod-accept mlestar-TaskImport-extract';
    this._extract.textContent = 'Extract';
    this._extract.addEventListener('click', () => void this.extract());

    const drop = document.createElement('div');
    drop.className = 'mlestar-TaskImport-drop';
    drop.textContent = this._upload
      ? 'Paths are relative to the Jupyter root, one a line. Or drop the saved pages and the ' +
        'data archive here: they are uploaded beside the task folder.'
      : 'Paths are relative to the Jupyter root, one a line (upload files with the file browser).';
    if (this._upload) {
      this._dropTarget(form, drop);
    }

    this._note = document.createElement('div');
    this._note.className = 'mlestar-TaskImport-note';
    this._general = document.createElement('ul');
    this._general.className = 'mlestar-TaskImport-problems';
    this._general.dataset.slot = 'general';
    this._table = document.createElement('table');
    this._table.className = 'mlestar-TaskImport-fields';

    const force = document.createElement('label');
    force.className = 'mlestar-TaskImport-check';
    force.append(this._force, document.createTextNode(' Replace an existing task.json'));

    form.append(
      drop,
      this._row('sources', 'Saved pages', this._sources),
      this._row('data', 'Data (folder or archive)', this._data),
      this._row('mlebench', 'Or MLE-bench folder', this._mlebench),
      this._row('out', 'Task folder to write', this._out),
      this._row('backend', 'Backend', this._backend),
      this._row('model', 'Model', this._model),
      this._row('force', '', force),
      this._extract,
      this._note,
      this._general,
      this._table
    );
    this._render();
  }

  /**
   * The dialog takes every Enter (to accept) and cancels its default, which would leave the
   * path lists one line long: Enter in a path list, or on Extract, is kept from it here.
   */
  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    window.addEventListener('keydown', this._keepEnter, true);
  }

  protected onBeforeDetach(msg: Message): void {
    window.removeEventListener('keydown', this._keepEnter, true);
    super.onBeforeDetach(msg);
  }

  private _keepEnter = (event: KeyboardEvent): void => {
    const target = event.target;
    if (
      event.key === 'Enter' &&
      (target instanceof HTMLTextAreaElement || target === this._extract) &&
      this.node.contains(target as Node)
    ) {
      event.stopPropagation();
    }
  };

  /** The state, with the inputs as typed now. */
  getValue(): ITaskImportState {
    return { ...this._state, raw: this._readInputs() };
  }

  /** Preview the current inputs and show the result (also what the Extract button does). */
  async extract(): Promise<void> {
    this._extract.disabled = true;
    this._note.textContent = 'Extracting…';
    try {
      this._state = await runPreview(this._api, this.getValue());
      this._target.value = this._state.raw.target;
      this._idColumn.value = this._state.raw.idColumn;
    } finally {
      this._extract.disabled = false;
    }
    this._render();
    this._note.scrollIntoView?.({ block: 'start' });
  }

  /** Upload dropped files and add their paths to the pages (by extension) or the data. */
  async addFiles(files: File[]): Promise<void> {
    if (!this._upload) {
      return;
    }
    const raw = this._readInputs();
    this._note.textContent = `Uploading ${files.length} file(s)…`;
    const pages: string[] = [];
    const data: string[] = [];
    try {
      for (const file of files) {
        const page = isPagePath(file.name);
        const path = await this._upload(file, uploadFolder(raw.out, page));
        (page ? pages : data).push(path);
      }
      this._note.textContent = `Uploaded ${pages.length + data.length} file(s).`;
    } catch (error) {
      this._note.textContent = `Upload failed: ${error instanceof Error ? error.message : error}`;
    }
    this._sources.value = appendPaths(this._sources.value, pages);
    this._data.value = appendPaths(this._data.value, data);
  }

  private _dropTarget(form: HTMLElement, hint: HTMLElement): void {
    form.addEventListener('dragover', e => {
      e.preventDefault();
      hint.classList.add('mlestar-mod-dragover');
    });
    form.addEventListener('dragleave', () => hint.classList.remove('mlestar-mod-dragover'));
    form.addEventListener('drop', e => {
      e.preventDefault();
      e.stopPropagation();
      hint.classList.remove('mlestar-mod-dragover');
      const files = Array.from(e.dataTransfer?.files ?? []);
      if (files.length) {
        void this.addFiles(files);
      }
    });
  }

  private _readInputs(): IImportFormRaw {
    return {
      sources: this._sources.value,
      data: this._data.value,
      mlebench: this._mlebench.value,
      out: this._out.value,
      backend: this._backend.value,
      model: this._model.value,
      target: this._target.value,
      idColumn: this._idColumn.value,
      force: this._force.checked
    };
  }

  /** A labelled input with a list for its problems under it. */
  private _row(slot: string, label: string, control: HTMLElement): HTMLElement {
    const el = document.createElement('div');
    el.className = 'mlestar-TaskImport-row';
    el.dataset.slot = slot;
    const name = document.createElement('label');
    name.textContent = label;
    const list = document.createElement('ul');
    list.className = 'mlestar-TaskImport-problems';
    el.append(name, control, list);
    return el;
  }

  /** Show the note, the problems next to their fields, and the extracted fields. */
  private _render(): void {
    const state = this._state;
    this._note.textContent = state.note;
    const slots = problemsBySlot(state.problems);
    this.node.querySelectorAll<HTMLElement>('.mlestar-TaskImport-row').forEach(row => {
      fill(row.querySelector('ul') as HTMLElement, slots.get(row.dataset.slot ?? '') ?? []);
      row.classList.toggle('mlestar-mod-problem', slots.has(row.dataset.slot ?? ''));
    });
    fill(this._general, slots.get('general') ?? []);

    this._table.replaceChildren();
    const shown = state.preview !== null || state.problems.length > 0;
    this._table.hidden = !shown;
    if (!shown) {
      return;
    }
    for (const field of extractedRows(state.preview)) {
      const tr = document.createElement('tr');
      tr.dataset.field = field.key;
      const th = document.createElement('th');
      th.textContent = field.label;
      const td = document.createElement('td');
      if (field.editable) {
        const input = field.editable === 'target' ? this._target : this._idColumn;
        input.placeholder = state.preview ? 'none' : 'type the column name';
        td.append(input);
      } else {
        const value = document.createElement(field.key === 'output_format' ? 'pre' : 'span');
        value.className = 'mlestar-TaskImport-value';
        value.textContent = field.value || '—';
        td.append(value);
      }
      if (field.guessed) {
        tr.classList.add('mlestar-mod-guessed');
        const badge = document.createElement('span');
        badge.className = 'mlestar-TaskImport-guessed';
        badge.textContent = 'guessed';
        badge.title = field.guessed;
        const why = document.createElement('small');
        why.className = 'mlestar-TaskImport-why';
        why.textContent = field.guessed;
        td.append(badge, why);
      }
      const slot = field.editable ?? field.key;
      const problems = slots.get(slot) ?? [];
      if (problems.length) {
        tr.classList.add('mlestar-mod-problem');
        const list = document.createElement('ul');
        list.className = 'mlestar-TaskImport-problems';
        fill(list, problems);
        td.append(list);
      }
      tr.append(th, td);
      this._table.append(tr);
    }
  }

  private _state: ITaskImportState;
  private _sources: HTMLTextAreaElement;
  private _data: HTMLTextAreaElement;
  private _mlebench: HTMLInputElement;
  private _out: HTMLInputElement;
  private _backend: HTMLSelectElement;
  private _model: HTMLInputElement;
  private _force: HTMLInputElement;
  private _target: HTMLInputElement;
  private _idColumn: HTMLInputElement;
  private _extract: HTMLButtonElement;
  private _note: HTMLElement;
  private _general: HTMLElement;
  private _table: HTMLTableElement;
}

function textInput(name: string, value: string): HTMLInputElement {
  const el = document.createElement('input');
  el.type = 'text';
  el.name = name;
  el.value = value;
  el.className = 'jp-mod-styled';
  return el;
}

function textarea(name: string, value: string): HTMLTextAreaElement {
  const el = document.createElement('textarea');
  el.name = name;
  el.value = value;
  el.rows = 3;
  el.className = 'jp-mod-styled';
  return el;
}

function fill(list: HTMLElement, messages: string[]): void {
  list.replaceChildren(
    ...messages.map(m => {
      const li = document.createElement('li');
      li.textContent = m;
      return li;
    })
  );
}

/** How the dialog is shown: `showDialog` in the app, a scripted stand-in in tests. */
export type ShowBody = (body: TaskImportBody) => Promise<Dialog.IResult<ITaskImportState>>;

const showImportDialog: ShowBody = body =>
  showDialog<ITaskImportState>({
    title: 'New task from competition page',
    body,
    buttons: [Dialog.cancelButton(), Dialog.okButton({ label: 'Create task' })],
    focusNodeSelector: 'textarea'
  });

/** A written task folder, and the fields that came out differently from the preview shown. */
export interface ITaskImported {
  task: IImportedTask;
  /** Labels of the rows whose written value differs from the preview (an LLM asked again). */
  changed: string[];
}

/**
 * Ask for the pages and data, preview, let the user confirm or correct, and write the task
 * folder. Resolves what was written, or null when cancelled. "Create task" on inputs whose
 * preview is missing or stale extracts first and shows the fields again for confirmation.
 */
export async function importTaskFromPages(
  options: {
    api?: ITaskImportAPI;
    initial?: Partial<IImportFormRaw>;
    upload?: Uploader | null;
    show?: ShowBody;
  } = {}
): Promise<ITaskImported | null> {
  const api = options.api ?? TaskImportAPI;
  const show = options.show ?? showImportDialog;
  let state = initialImportState(options.initial);
  for (;;) {
    const result = await show(new TaskImportBody(state, api, options.upload ?? null));
    if (!result.button.accept || !result.value) {
      return null;
    }
    state = result.value;
    if (!previewIsCurrent(state)) {
      state = await runPreview(api, state);
      continue;
    }
    const before = state.preview as IImportedTask;
    const outcome = await runWrite(api, state);
    state = outcome.state;
    if (outcome.written) {
      return { task: outcome.written, changed: changedFields(before, outcome.written) };
    }
  }
}

/** Command id of the dialog. */
export const IMPORT_TASK_COMMAND = 'mlestar-jupyter:import-task';

/**
 * Register the "New task from competition page" command (and its palette item). Arguments
 * `sources`, `data` (lists of root-relative paths) and `out` prefill the dialog. Once written,
 * the task.json is opened and a notification says where the folder is.
 */
export function registerTaskImport(
  app: JupyterFrontEnd,
  palette: ICommandPalette | null,
  options: { icon?: LabIcon; defaultBackend?: () => string } = {}
): void {
  const { icon, defaultBackend } = options;
  app.commands.addCommand(IMPORT_TASK_COMMAND, {
    label: 'New task from competition page',
    caption:
      'Make a task folder (task.json + input/) from saved competition pages and the downloaded data',
    icon,
    execute: async args => {
      const list = (value: unknown) =>
        Array.isArray(value) ? value.map(String).join('\n') : undefined;
      const backend = defaultBackend?.() ?? 'offline';
      const initial: Partial<IImportFormRaw> = {
        backend: (IMPORT_BACKENDS as readonly string[]).includes(backend) ? backend : 'offline'
      };
      const sources = list(args.sources);
      const data = list(args.data);
      if (sources !== undefined) {
        initial.sources = sources;
      }
      if (data !== undefined) {
        initial.data = data;
      }
      if (typeof args.out === 'string') {
        initial.out = args.out;
      }
      const done = await importTaskFromPages({
        initial,
        upload: contentsUploader(app.serviceManager.contents)
      });
      if (!done) {
        return null;
      }
      const taskJson = done.task.task_dir ? `${done.task.task_dir}/task.json` : 'task.json';
      Notification.success(
        `Wrote ${taskJson}: run it with \`mlestar run ${done.task.task_dir || '.'}\` or from a notebook.`,
        { autoClose: 10000 }
      );
      if (done.changed.length) {
        Notification.warning(
          `The written task differs from the preview in: ${done.changed.join(', ')} ` +
            '(the backend was asked again). Check task.json.',
          { autoClose: false }
        );
      }
      await app.commands.execute('docmanager:open', { path: taskJson });
      return done.task;
    }
  });
  palette?.addItem({ command: IMPORT_TASK_COMMAND, category: 'MLE-STAR' });
}

/** An uploader through the contents API (chunked, as the file browser does for large files). */
export function contentsUploader(contents: Contents.IManager, chunkSize = 1024 * 1024): Uploader {
  return async (file: File, folder: string): Promise<string> => {
    await ensureFolder(contents, folder);
    const path = `${folder}/${file.name}`;
    if (file.size <= chunkSize) {
      await contents.save(path, {
        type: 'file',
        format: 'base64',
        content: await base64(file)
      });
      return path;
    }
    for (let start = 0, n = 1; start < file.size; start += chunkSize, n++) {
      const last = start + chunkSize >= file.size;
      await contents.save(path, {
        type: 'file',
        format: 'base64',
        content: await base64(file.slice(start, start + chunkSize)),
        chunk: last ? -1 : n
      });
    }
    return path;
  };
}

async function ensureFolder(contents: Contents.IManager, folder: string): Promise<void> {
  let path = '';
  for (const part of folder.split('/').filter(Boolean)) {
    path = path ? `${path}/${part}` : part;
    try {
      await contents.get(path, { content: false });
    } catch {
      await contents.save(path, { type: 'directory' });
    }
  }
}

async function base64(blob: Blob): Promise<string> {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
