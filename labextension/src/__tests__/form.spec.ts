import {
  agentBlockIds,
  defaultTaskDir,
  IRunFormRaw,
  parseDuration,
  parseRunForm,
  RunFormError,
  taskFromMetadata
} from '../form';

describe('defaultTaskDir', () => {
  it('uses the notebook folder', () => {
    expect(defaultTaskDir('tasks/titanic/solution.ipynb', {})).toBe('tasks/titanic');
  });
  it('uses "." for a notebook at the server root', () => {
    expect(defaultTaskDir('solution.ipynb', {})).toBe('.');
  });
  it('resolves metadata.mlestar.task against the notebook folder', () => {
    const meta = { mlestar: { task: '../data/task1' } };
    expect(defaultTaskDir('work/nb/solution.ipynb', meta)).toBe('work/data/task1');
  });
  it('keeps an absolute metadata task', () => {
    expect(defaultTaskDir('a/b.ipynb', { mlestar: { task: '/srv/task' } })).toBe('/srv/task');
  });
  it('ignores a blank or non-string task', () => {
    expect(taskFromMetadata({ mlestar: { task: '  ' } })).toBeNull();
    expect(taskFromMetadata({ mlestar: { task: 3 } })).toBeNull();
    expect(taskFromMetadata(null)).toBeNull();
    expect(defaultTaskDir('x/y.ipynb', { mlestar: 'nope' })).toBe('x');
  });
});

describe('parseDuration', () => {
  it.each([
    ['30', 1800],
    ['90s', 90],
    ['10m', 600],
    ['10 min', 600],
    ['1.5h', 5400],
    [' 2H ', 7200]
  ])('%s → %d seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });
  it.each(['', 'abc', '-5', '10 days', '5s'])('rejects %p', text => {
    expect(() => parseDuration(text)).toThrow(RunFormError);
  });
  it('says what to type', () => {
    expect(() => parseDuration('soon')).toThrow(/type minutes \(30\) or 90s, 10m, 1\.5h/);
  });
});

describe('parseRunForm', () => {
  const raw: IRunFormRaw = {
    taskDir: ' work ',
    backend: 'offline',
    timeBudget: '2m',
    mode: 'step'
  };
  it('builds the POST /mlestar/runs body', () => {
    expect(parseRunForm(raw, 'work/solution.ipynb')).toEqual({
      task_dir: 'work',
      notebook_path: 'work/solution.ipynb',
      backend: 'offline',
      time_limit: 120,
      mode: 'step'
    });
  });
  it('sends the model for LLM backends only', () => {
    const llm = { ...raw, backend: 'openai', model: ' qwen2.5-coder:1.5b ' };
    expect(parseRunForm(llm, 'nb.ipynb').model).toBe('qwen2.5-coder:1.5b');
    expect(parseRunForm({ ...llm, model: '' }, 'nb.ipynb')).not.toHaveProperty('model');
    expect(parseRunForm({ ...llm, backend: 'offline' }, 'nb.ipynb')).not.toHaveProperty('model');
  });
  it('sends a target column and a metric only when given', () => {
    const body = parseRunForm({ ...raw, target: ' SalePrice ', metric: ' MAP@3 ' }, 'nb.ipynb');
    expect(body.target).toBe('SalePrice');
    expect(body.metric).toBe('MAP@3');
    const blank = parseRunForm({ ...raw, target: '  ', metric: '' }, 'nb.ipynb');
    expect(blank).not.toHaveProperty('target');
    expect(blank).not.toHaveProperty('metric');
  });
  it('names the faulty field', () => {
    const cases: [Partial<typeof raw>, string][] = [
      [{ taskDir: '  ' }, 'taskDir'],
      [{ backend: 'claude' }, 'backend'],
      [{ mode: 'turbo' }, 'mode'],
      [{ timeBudget: 'x' }, 'timeBudget'],
      [{ backend: 'openai', model: 'rm -rf /' }, 'model']
    ];
    for (const [patch, field] of cases) {
      try {
        parseRunForm({ ...raw, ...patch }, 'nb.ipynb');
        throw new Error('expected a RunFormError');
      } catch (error) {
        expect(error).toBeInstanceOf(RunFormError);
        expect((error as RunFormError).field).toBe(field);
      }
    }
  });
});

describe('agentBlockIds', () => {
  it('numbers code cells as the agent does: kept ids first, then b1, b2, ... skipping used ones', () => {
    expect(
      agentBlockIds([
        { type: 'markdown', blockId: null },
        { type: 'code', blockId: null },
        { type: 'code', blockId: 'b1' },
        { type: 'code', blockId: null },
        { type: 'code', blockId: 'b1' }
      ])
    ).toEqual([null, 'b2', 'b1', 'b3', 'b4']);
  });
});
