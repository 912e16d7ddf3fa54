import { RunFormBody } from '../dialog';
import { describesItsTask, folderDescribesTask, IListedItem, IRunFormRaw } from '../form';

const file = (name: string): IListedItem => ({ name, type: 'file' });
const dir = (name: string): IListedItem => ({ name, type: 'directory' });

const RAW: IRunFormRaw = {
  taskDir: 'tasks/wine',
  backend: 'offline',
  timeBudget: '5',
  mode: 'autopilot'
};

/** A lister over a fixed tree of folders; an unknown folder fails as the contents API does. */
function lister(tree: { [dir: string]: IListedItem[] }): (d: string) => Promise<IListedItem[]> {
  return async (d: string) => {
    if (!(d in tree)) {
      throw new Error(`no such folder: ${d}`);
    }
    return tree[d];
  };
}

const TREE = {
  'tasks/wine': [file('task.json'), dir('input')],
  kaggle: [file('train.csv'), file('test.csv'), file('sample_submission.csv'), file('eda.ipynb')],
  mlebench: [dir('prepared')],
  described: [file('description.md'), dir('input')],
  readme: [file('README.md'), dir('input')],
  readmeOnly: [file('README.md'), file('train.csv')]
};

describe('describesItsTask', () => {
  it('reads a folder as the server does', () => {
    expect(describesItsTask(TREE['tasks/wine'])).toBe(true);
    expect(describesItsTask(TREE.mlebench)).toBe(true);
    expect(describesItsTask(TREE.described)).toBe(true);
    expect(describesItsTask(TREE.readme)).toBe(true);
    // a Kaggle download and a repository's README without input/ do not describe a task
    expect(describesItsTask(TREE.kaggle)).toBe(false);
    expect(describesItsTask(TREE.readmeOnly)).toBe(false);
    // a file called "prepared" is not MLE-bench's folder
    expect(describesItsTask([file('prepared')])).toBe(false);
    // the same fields written in YAML
    expect(describesItsTask([file('task.yaml'), dir('input')])).toBe(true);
    expect(describesItsTask([file('task.yml')])).toBe(true);
  });

  it('says null for a folder it cannot list', async () => {
    const list = lister(TREE);
    expect(await folderDescribesTask(list, 'kaggle')).toBe(false);
    expect(await folderDescribesTask(list, 'nowhere')).toBeNull();
  });
});

describe('RunFormBody: target and metric', () => {
  const shown = (body: RunFormBody) => {
    const details = body.node.querySelector('details.mlestar-RunForm-notebookTask') as HTMLElement;
    const note = body.node.querySelector('.mlestar-RunForm-taskNote') as HTMLElement;
    return { fields: !details.hidden, note: !note.hidden, details };
  };

  it('hides them, saying why, for a folder with task.json', async () => {
    const body = new RunFormBody(RAW, lister(TREE));
    await body.ready;
    expect(shown(body)).toMatchObject({ fields: false, note: true });
    expect(body.folderDescribesTask).toBe(true);
  });

  it('offers them, folded, for a Kaggle download beside the notebook', async () => {
    const body = new RunFormBody({ ...RAW, taskDir: 'kaggle' }, lister(TREE));
    await body.ready;
    const s = shown(body);
    expect(s).toMatchObject({ fields: true, note: false });
    expect((s.details as HTMLDetailsElement).open).toBe(false);
  });

  it('opens them when they hold values, and sends none for a folder with its own', async () => {
    const body = new RunFormBody({ ...RAW, taskDir: 'kaggle', target: 'quality' }, lister(TREE));
    await body.ready;
    const details = shown(body).details as HTMLDetailsElement;
    expect(details.open).toBe(true);
    expect(body.getValue().target).toBe('quality');
    // the user types another folder: one with a task.json
    const input = body.node.querySelector('input[name="mlestar-taskDir"]') as HTMLInputElement;
    input.value = 'tasks/wine';
    await body.checkTaskFolder();
    expect(shown(body)).toMatchObject({ fields: false, note: true });
    expect(body.getValue().target).toBe('');
  });

  it('keeps them for a folder it cannot list, and without a lister', async () => {
    const unknown = new RunFormBody({ ...RAW, taskDir: 'nowhere' }, lister(TREE));
    await unknown.ready;
    expect(shown(unknown)).toMatchObject({ fields: true, note: false });
    const plain = new RunFormBody(RAW);
    await plain.ready;
    expect(shown(plain)).toMatchObject({ fields: true, note: false });
  });
});
