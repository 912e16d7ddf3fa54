import { Dialog } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { fieldProblems, MlestarAPIError } from '../api';
import {
  importTaskFromPages,
  initialImportState,
  ITaskImportAPI,
  ITaskImportState,
  previewIsCurrent,
  TaskImportBody
} from '../taskImport';
import {
  appendPaths,
  buildImportRequest,
  changedFields,
  emptyImportForm,
  extractedRows,
  IImportedTask,
  IImportFormRaw,
  IImportTask,
  ImportFormError,
  isPagePath,
  problemSlot,
  problemsBySlot,
  uploadFolder
} from '../taskImportForm';

/** The answer of a real preview (tests/task_import's house-prices competition, offline). */
function housePreview(written = false): IImportedTask {
  const guessed = {
    'metric.direction': "rmsle is minimized (the evaluator's metric registry)",
    id_col: "the sample submission's first column (sample_submission.csv)",
    target_col: "the sample submission's column(s) found in train.csv",
    task_type: "regression (from the metric and the target's values)",
    'data_information.data_type': 'Tabular (from the file types)'
  };
  return {
    task_dir: 'tasks/house',
    written,
    guessed,
    task: {
      task_type: 'regression',
      goal_description: 'Predict the final price of each home.',
      metric: { metric_name: 'rmsle', direction: 'minimize', metric_formula: '' },
      target_col: 'SalePrice',
      id_col: 'Id',
      data_information: {
        data_type: 'Tabular',
        train: { data_location: 'train.csv', data_description: 'the training set' },
        test: { data_location: 'test.csv', data_description: 'the test set' }
      },
      output_format: 'Id,SalePrice\n1,180000.0\n...',
      special_instructions:
        '1. Teams may have at most 5 members. 2. You must not hand-label the test set.',
      id: 'house',
      import: { backend: 'offline', guessed }
    }
  };
}

function form(values: Partial<IImportFormRaw> = {}): IImportFormRaw {
  return {
    ...emptyImportForm(),
    sources: 'downloads/overview.html\ndownloads/evaluation.md',
    data: 'downloads/house.zip',
    out: 'tasks/house',
    ...values
  };
}

/** A fake endpoint: answers from a queue, records every request. */
class FakeAPI implements ITaskImportAPI {
  requests: IImportTask[] = [];
  answers: (IImportedTask | Error)[] = [];
  async importTask(body: IImportTask): Promise<IImportedTask> {
    this.requests.push(body);
    const next = this.answers.shift();
    if (next === undefined) {
      throw new Error('no answer queued');
    }
    if (next instanceof Error) {
      throw next;
    }
    return next;
  }
}

function badRequest(fields: { field: string; message: string }[]): MlestarAPIError {
  return new MlestarAPIError('the pages and data do not make a task', 400, 'tasks/import', fields);
}

describe('buildImportRequest', () => {
  it('builds the body from the typed paths, one a line', () => {
    const raw = form({
      sources: ' /downloads/overview.html \n\n./downloads/evaluation.md\ndownloads/overview.html',
      data: 'downloads\\house.zip\n',
      out: 'tasks/house/',
      model: ' gemini-2.5-flash '
    });
    expect(buildImportRequest(raw, true)).toEqual({
      sources: ['downloads/overview.html', 'downloads/evaluation.md'],
      data: ['downloads/house.zip'],
      out: 'tasks/house',
      backend: 'offline',
      model: 'gemini-2.5-flash',
      preview: true,
      force: false
    });
    const write = buildImportRequest(form({ force: true, backend: 'openai' }), false);
    expect(write.preview).toBe(false);
    expect(write.force).toBe(true);
    expect(write.backend).toBe('openai');
    expect('model' in write).toBe(false);
  });

  it('names every missing input', () => {
    try {
      buildImportRequest(emptyImportForm(), true);
      fail('no error');
    } catch (e) {
      expect(e).toBeInstanceOf(ImportFormError);
      const fields = (e as ImportFormError).problems.map(p => p.field);
      expect(fields).toEqual(['sources', 'data', 'out']);
      expect((e as ImportFormError).problems[0].message).toMatch(/saved competition page/);
    }
  });

  it('refuses a bad backend, model or column', () => {
    const bad = form({ backend: 'claude', model: 'a b', target: 'x\ny' });
    expect(() => buildImportRequest(bad, true)).toThrow(ImportFormError);
    try {
      buildImportRequest(bad, true);
    } catch (e) {
      expect((e as ImportFormError).problems.map(p => p.field)).toEqual([
        'backend',
        'model',
        'target'
      ]);
    }
  });

  it('imports an MLE-bench folder alone', () => {
    const raw = form({ sources: '', data: '', mlebench: 'mle/spaceship-titanic' });
    const body = buildImportRequest(raw, true);
    expect(body.from_mlebench).toBe('mle/spaceship-titanic');
    expect(body.sources).toEqual([]);
    expect(() => buildImportRequest(form({ mlebench: 'mle/x' }), true)).toThrow(/imported alone/);
  });

  it('sends the target and id column only as corrections of the extraction', () => {
    const extracted = housePreview().task;
    const same = buildImportRequest(
      form({ target: 'SalePrice', idColumn: 'Id' }),
      false,
      extracted
    );
    expect(same.target).toBeUndefined();
    expect(same.id_column).toBeUndefined();
    const fixed = buildImportRequest(form({ target: 'LogPrice', idColumn: '' }), false, extracted);
    expect(fixed.target).toBe('LogPrice');
    expect(fixed.id_column).toBeUndefined();
    // No preview yet (it failed): whatever is typed is a correction.
    expect(buildImportRequest(form({ target: 'SalePrice' }), true).target).toBe('SalePrice');
    // A preview made with a correction shows it as extracted: the write sends it again.
    const pinned = buildImportRequest(form({ target: 'SalePrice' }), false, extracted, {
      target: 'SalePrice'
    });
    expect(pinned.target).toBe('SalePrice');
  });
});

describe('extractedRows', () => {
  it('marks each guessed field with its reason', () => {
    const rows = extractedRows(housePreview());
    const byKey = new Map(rows.map(r => [r.key, r]));
    expect(byKey.get('metric.metric_name')?.value).toBe('rmsle');
    expect(byKey.get('metric.metric_name')?.guessed).toBeNull();
    expect(byKey.get('metric.direction')?.guessed).toMatch(/metric registry/);
    expect(byKey.get('target_col')?.guessed).toMatch(/found in train\.csv/);
    expect(byKey.get('target_col')?.editable).toBe('target');
    expect(byKey.get('id_col')?.editable).toBe('id_column');
    expect(byKey.get('special_instructions')?.guessed).toBeNull();
    expect(byKey.get('data_information.train.data_location')?.value).toBe(
      'train.csv: the training set'
    );
    expect(rows.filter(r => r.guessed).map(r => r.key)).toEqual([
      'task_type',
      'metric.direction',
      'target_col',
      'id_col',
      'data_information.data_type'
    ]);
  });

  it("marks the LLM's guesses, named as in its answer", () => {
    const preview = housePreview();
    preview.guessed = {
      metric: 'inferred by the LLM (not stated in the pages)',
      train_files: 'inferred by the LLM (not stated in the pages)'
    };
    const guessed = extractedRows(preview)
      .filter(r => r.guessed)
      .map(r => r.key);
    expect(guessed).toEqual([
      'metric.metric_name',
      'metric.direction',
      'data_information.train.data_location'
    ]);
  });

  it('keeps the rows (empty) when nothing was extracted', () => {
    const rows = extractedRows(null);
    expect(rows.every(r => r.value === '' && r.guessed === null)).toBe(true);
    expect(rows.filter(r => r.editable).length).toBe(2);
  });

  it('lists the fields a write changed', () => {
    const after = housePreview(true);
    after.task.metric = { metric_name: 'rmse', direction: 'minimize' };
    expect(changedFields(housePreview(), after)).toEqual(['Metric']);
  });
});

describe('problemsBySlot', () => {
  it('puts each server field next to its input or row', () => {
    expect(problemSlot('sources.1')).toBe('sources');
    expect(problemSlot('source')).toBe('sources');
    expect(problemSlot('data.0')).toBe('data');
    expect(problemSlot('--out')).toBe('out');
    expect(problemSlot('from_mlebench')).toBe('mlebench');
    expect(problemSlot('--from-mlebench')).toBe('mlebench');
    expect(problemSlot('llm')).toBe('backend');
    expect(problemSlot('target_col')).toBe('target');
    expect(problemSlot('id_col')).toBe('id_column');
    expect(problemSlot('metric')).toBe('metric.metric_name');
    expect(problemSlot('metric.direction')).toBe('metric.direction');
    expect(problemSlot('sample_submission')).toBe('output_format');
    expect(problemSlot('data_information.test.data_location')).toBe(
      'data_information.test.data_location'
    );
    expect(problemSlot('task.json')).toBe('general');
  });

  it('groups messages, quoting the field of general ones', () => {
    const slots = problemsBySlot([
      { field: 'target_col', message: 'a' },
      { field: 'target_col', message: 'b' },
      { field: 'task.json', message: 'c' }
    ]);
    expect(slots.get('target')).toEqual(['a', 'b']);
    expect(slots.get('general')).toEqual(['task.json: c']);
  });
});

describe('paths and uploads', () => {
  it('sorts dropped files into pages and data', () => {
    expect(isPagePath('Overview.HTML')).toBe(true);
    expect(isPagePath('rules.txt')).toBe(true);
    expect(isPagePath('comp.zip')).toBe(false);
    expect(uploadFolder('tasks/house/', true)).toBe('tasks/house-pages');
    expect(uploadFolder('', false)).toBe('imported-task-download');
    expect(appendPaths('a.md\n', ['b.md', 'a.md'])).toBe('a.md\nb.md');
  });

  it("keeps a 400's fields on the API error", () => {
    expect(
      fieldProblems({ message: 'x', fields: [{ field: 'metric', message: 'missing' }, 3] })
    ).toEqual([{ field: 'metric', message: 'missing' }]);
    expect(fieldProblems({ message: 'x' })).toEqual([]);
    expect(fieldProblems('text')).toEqual([]);
  });
});

function rowOf(body: TaskImportBody, key: string): HTMLElement {
  return body.node.querySelector(`tr[data-field="${key}"]`) as HTMLElement;
}

describe('TaskImportBody', () => {
  it('previews on Extract and shows the fields, guessed ones marked', async () => {
    const api = new FakeAPI();
    api.answers.push(housePreview());
    const body = new TaskImportBody(initialImportState(form()), api);
    expect(body.node.querySelector('table')?.hidden).toBe(true);
    await body.extract();
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0].preview).toBe(true);
    expect(api.requests[0].sources).toEqual(['downloads/overview.html', 'downloads/evaluation.md']);
    const direction = rowOf(body, 'metric.direction');
    expect(direction.classList.contains('mlestar-mod-guessed')).toBe(true);
    expect(direction.querySelector('.mlestar-TaskImport-guessed')?.getAttribute('title')).toMatch(
      /metric registry/
    );
    const metric = rowOf(body, 'metric.metric_name');
    expect(metric.classList.contains('mlestar-mod-guessed')).toBe(false);
    expect(metric.textContent).toContain('rmsle');
    const target = rowOf(body, 'target_col').querySelector('input') as HTMLInputElement;
    expect(target.value).toBe('SalePrice');
    expect(rowOf(body, 'output_format').querySelector('pre')?.textContent).toContain(
      'Id,SalePrice'
    );
    const value = body.getValue();
    expect(previewIsCurrent(value)).toBe(true);
    expect(value.raw.idColumn).toBe('Id');
    expect(body.node.querySelector('.mlestar-TaskImport-note')?.textContent).toMatch(
      /5 field\(s\) guessed/
    );
  });

  it('shows the problems next to their fields', async () => {
    const api = new FakeAPI();
    api.answers.push(
      badRequest([
        { field: 'sources.0', message: 'outside the server root' },
        { field: 'target_col', message: 'cannot tell the target column; pass --target COLUMN' },
        { field: 'sample_submission', message: 'no sample submission in the data' },
        { field: 'task.json', message: 'does not load' }
      ])
    );
    const body = new TaskImportBody(initialImportState(form()), api);
    await body.extract();
    const sources = body.node.querySelector('[data-slot="sources"]') as HTMLElement;
    expect(sources.classList.contains('mlestar-mod-problem')).toBe(true);
    expect(sources.querySelector('li')?.textContent).toBe('outside the server root');
    const target = rowOf(body, 'target_col');
    expect(target.classList.contains('mlestar-mod-problem')).toBe(true);
    expect(target.textContent).toContain('cannot tell the target column');
    expect(target.querySelector('input')).not.toBeNull();
    expect(rowOf(body, 'output_format').textContent).toContain('no sample submission');
    const general = body.node.querySelector('ul[data-slot="general"]') as HTMLElement;
    expect(general.textContent).toBe('task.json: does not load');
    expect(rowOf(body, 'metric.metric_name').classList.contains('mlestar-mod-problem')).toBe(false);
    expect(body.getValue().preview).toBeNull();
  });

  it('checks the inputs before calling the server', async () => {
    const api = new FakeAPI();
    const body = new TaskImportBody(initialImportState(form({ out: ' ' })), api);
    await body.extract();
    expect(api.requests).toHaveLength(0);
    const out = body.node.querySelector('[data-slot="out"]') as HTMLElement;
    expect(out.textContent).toContain('name the task folder');
  });

  it('keeps Enter in a path list from the dialog (which would cancel the newline)', () => {
    const dialog = document.createElement('div');
    document.body.appendChild(dialog);
    const seen: string[] = [];
    dialog.addEventListener(
      'keydown',
      e => seen.push((e.target as HTMLElement).getAttribute('name') ?? ''),
      true
    );
    const body = new TaskImportBody(initialImportState(form()), new FakeAPI());
    Widget.attach(body, dialog);
    const enter = (name: string) =>
      body.node
        .querySelector(`[name="${name}"]`)
        ?.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    enter('mlestar-import-sources');
    enter('mlestar-import-out');
    expect(seen).toEqual(['mlestar-import-out']);
    Widget.detach(body);
    enter('mlestar-import-sources');
    expect(seen).toEqual(['mlestar-import-out']); // detached: not in the dialog any more
    dialog.remove();
  });

  it('uploads dropped files beside the task folder', async () => {
    const uploaded: string[] = [];
    const upload = async (file: File, folder: string) => {
      uploaded.push(`${folder}/${file.name}`);
      return `${folder}/${file.name}`;
    };
    const body = new TaskImportBody(
      initialImportState(form({ sources: '', data: '' })),
      new FakeAPI(),
      upload
    );
    await body.addFiles([new File(['<html/>'], 'overview.html'), new File(['PK'], 'comp.zip')]);
    expect(uploaded).toEqual(['tasks/house-pages/overview.html', 'tasks/house-download/comp.zip']);
    expect(body.getValue().raw.sources).toBe('tasks/house-pages/overview.html');
    expect(body.getValue().raw.data).toBe('tasks/house-download/comp.zip');
  });
});

/** A scripted dialog: each step edits the body, then accepts (true) or cancels (false). */
function script(steps: ((body: TaskImportBody) => boolean | Promise<boolean>)[]) {
  const shown: ITaskImportState[] = [];
  const show = async (body: TaskImportBody): Promise<Dialog.IResult<ITaskImportState>> => {
    shown.push(body.getValue());
    const step = steps.shift();
    if (!step) {
      throw new Error('the dialog opened more often than scripted');
    }
    const accept = await step(body);
    return {
      button: accept ? Dialog.okButton({ label: 'Create task' }) : Dialog.cancelButton(),
      isChecked: null,
      value: accept ? body.getValue() : null
    };
  };
  return { show, shown };
}

function setInput(body: TaskImportBody, name: string, value: string): void {
  (body.node.querySelector(`[name="${name}"]`) as HTMLInputElement).value = value;
}

describe('importTaskFromPages', () => {
  it('extracts first, then writes with the correction', async () => {
    const api = new FakeAPI();
    const corrected = housePreview(true);
    corrected.task.target_col = 'LogPrice';
    api.answers.push(housePreview(), corrected);
    const { show, shown } = script([
      () => true, // Create task without a preview: extracts and shows the fields
      body => {
        setInput(body, 'mlestar-import-target', 'LogPrice');
        return true;
      }
    ]);
    const done = await importTaskFromPages({ api, show, initial: form() });
    expect(api.requests.map(r => r.preview)).toEqual([true, false]);
    expect(api.requests[1].target).toBe('LogPrice');
    expect(api.requests[1].id_column).toBeUndefined();
    expect(shown[1].preview?.task.metric.metric_name).toBe('rmsle');
    expect(done?.task.written).toBe(true);
    expect(done?.changed).toEqual(['Target']);
  });

  it('extracts again when an input changed after the preview', async () => {
    const api = new FakeAPI();
    api.answers.push(housePreview(), housePreview(), housePreview(true));
    const { show } = script([
      async body => {
        await body.extract();
        setInput(body, 'mlestar-import-out', 'tasks/house2');
        return true;
      },
      () => true
    ]);
    const done = await importTaskFromPages({ api, show, initial: form() });
    expect(api.requests.map(r => [r.preview, r.out])).toEqual([
      [true, 'tasks/house'],
      [true, 'tasks/house2'],
      [false, 'tasks/house2']
    ]);
    expect(done?.changed).toEqual([]);
  });

  it('reopens with the problems of a refused write', async () => {
    const api = new FakeAPI();
    api.answers.push(
      housePreview(),
      badRequest([
        { field: '--out', message: 'tasks/house already holds a task.json; pass --force' }
      ]),
      housePreview(true)
    );
    const { show, shown } = script([
      async body => {
        await body.extract();
        return true;
      },
      body => {
        const out = body.node.querySelector('[data-slot="out"]') as HTMLElement;
        expect(out.textContent).toContain('already holds a task.json');
        (body.node.querySelector('[name="mlestar-import-force"]') as HTMLInputElement).checked =
          true;
        return true;
      }
    ]);
    const done = await importTaskFromPages({ api, show, initial: form() });
    expect(shown).toHaveLength(2);
    expect(api.requests.map(r => [r.preview, r.force])).toEqual([
      [true, false],
      [false, false],
      [false, true]
    ]);
    expect(done?.task.written).toBe(true);
  });

  it('resolves null on cancel, writing nothing', async () => {
    const api = new FakeAPI();
    const { show } = script([() => false]);
    expect(await importTaskFromPages({ api, show, initial: form() })).toBeNull();
    expect(api.requests).toHaveLength(0);
  });
});
