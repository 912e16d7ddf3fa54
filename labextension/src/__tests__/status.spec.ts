import { CHANGE_KINDS, describeEvent, formatScore, RunSummary, statusLine } from '../status';
import { isTerminal } from '../models';
import { ev, makeProposal, makeRun } from './fixtures';

describe('formatScore', () => {
  it.each([
    [0.912345, '0.9123'],
    [1, '1'],
    [null, '–'],
    [NaN, '–'],
    [12345678, '1.235e+7'],
    [0.00001234, '1.234e-5']
  ])('%p → %s', (score, text) => {
    expect(formatScore(score as number | null)).toBe(text);
  });
});

describe('describeEvent', () => {
  it('describes the events users care about', () => {
    expect(describeEvent(ev('phase', { phase: 'refine' }))).toBe('Phase: refine');
    expect(
      describeEvent(ev('candidate', { phase: 'init', label: 'lightgbm', score: 0.8, ok: true }))
    ).toBe('init: lightgbm → 0.8');
    expect(
      describeEvent(
        ev('candidate', { phase: 'init', node_id: 'n2', ok: false, error: 'ValueError: x\nmore' })
      )
    ).toBe('init: n2 failed: ValueError: x');
    expect(
      describeEvent(
        ev('proposal', { proposal_id: 'p3', block_id: 'b4', score_before: 0.91, score_after: 0.93 })
      )
    ).toBe('Proposal p3 for block b4: 0.91 → 0.93');
    expect(describeEvent(ev('decision', { proposal_id: 'p3', decision: 'reject' }))).toBe(
      'Proposal p3 rejected'
    );
    expect(describeEvent(ev('run_finished', { status: 'done', best_score: 0.93 }))).toBe(
      'Run done: best 0.93'
    );
    expect(describeEvent(ev('error', { message: 'kernel died' }))).toBe('✖ kernel died');
    expect(describeEvent(ev('heldout', { score: 0.9712, rows: 114, valid: true }))).toBe(
      'Held-out score 0.9712 on 114 rows the search never saw'
    );
    expect(describeEvent(ev('heldout', { score: null, reason: 'no submission was written' }))).toBe(
      'Held-out rows not graded: no submission was written'
    );
  });
  it('says the path of an event and omits empty values', () => {
    expect(describeEvent(ev('plan', { path: 'p1', block_id: 'b2', plan: 'More trees.' }))).toBe(
      '[p1] Plan for block b2: More trees.'
    );
    expect(describeEvent(ev('phase', { phase: 'init', path: '' }))).toBe('Phase: init');
    expect(describeEvent(ev('run_finished', { status: 'stopped', best_score: null }))).toBe(
      'Run stopped'
    );
    expect(
      describeEvent(
        ev('run_finished', {
          status: 'not_understood',
          best_score: null,
          reason: 'no model fit found'
        })
      )
    ).toBe('Run not_understood (no model fit found)');
    expect(
      describeEvent(ev('proposal', { path: 'p0', proposal_id: 'p0-t1', block_id: 'b2' }))
    ).toBe('[p0] Proposal p0-t1 for block b2');
  });
  it('leaves the best score out of the status line until there is one', () => {
    expect(statusLine(makeRun(), new RunSummary(), [])).toBe(
      'running · phase refine · 0 proposals'
    );
  });
  it('says how the user notebook was read, or why not', () => {
    const read = {
      understood: true,
      roles: { b1: 'load', b2: 'model', b3: 'train', b4: 'model' },
      mixed: ['b2'],
      target: 'price',
      added_block: 'b5'
    };
    expect(describeEvent(ev('understanding', read))).toBe(
      'Read your notebook: 4 cell(s) (1 load, 2 model, 1 train), target price; ' +
        '1 mixed cell(s) (refined part by part); added validation cell b5'
    );
    expect(describeEvent(ev('understanding', { understood: true, roles: {} }))).toBe(
      'Read your notebook: 0 cell(s)'
    );
    const moved = {
      understood: true,
      roles: { b1: 'load' },
      data_paths: [
        ['b1', '/kaggle/input/bc/train.csv', 'input/train.csv', 'path'],
        ['b1', '../input/test.csv', 'input/test.csv'],
        ['b1', '!pip install lightgbm', 'pass  # ...', 'install'],
        ['b1', 'import seaborn as sns', 'try: ...', 'module'],
        ['b2', '', '_mlestar_folds = []', 'fold'],
        ['b2', '', '    _mlestar_folds.append((y_va, p))', 'fold']
      ]
    };
    expect(describeEvent(ev('understanding', moved))).toBe(
      'Read your notebook: 1 cell(s) (1 load); changed for this machine: 2 data path(s) ' +
        'pointed at ./input, 1 install line(s) not run, 1 import(s) of missing plot packages ' +
        'stood in for, 2 line(s) added to score every pass of a loop'
    );
    expect(
      describeEvent(ev('understanding', { understood: false, reason: 'no model fit\nfound' }))
    ).toBe('✖ Your notebook was not understood: no model fit');
  });
  it('counts every kind of change to the user notebook, an unknown one as other', () => {
    // The Python side (agent/changes.py) also records Colab, shell, temp-folder and own-module
    // changes and writes sent from the data folder; the status line dropped them. Same words as the widget's log (progress.py).
    const kinds = [
      'path',
      'install',
      'colab',
      'shell',
      'module',
      'fold',
      'temp',
      'local',
      'output',
      'stop',
      'keep',
      'old_api',
      'input',
      'error',
      'cwd',
      'debug',
      'gpu',
      'scoring',
      'argv'
    ];
    const data_paths = [
      ...kinds.map(kind => ['b1', 'old', 'new', kind]),
      ['b2', '', 'new', 'colab'],
      ['b2', 'old', 'new', 'a-kind-of-tomorrow'],
      ['b3', 'old', 'new', 'another-new-kind']
    ];
    expect(
      describeEvent(ev('understanding', { understood: true, roles: { b1: 'load' }, data_paths }))
    ).toBe(
      'Read your notebook: 1 cell(s) (1 load); changed for this machine: ' +
        '1 data path(s) pointed at ./input, ' +
        '1 install line(s) not run, ' +
        '2 line(s) only Colab runs not run, ' +
        "1 shell line(s) pointed at the run's folders or not run, " +
        '1 import(s) of missing plot packages stood in for, ' +
        '1 line(s) added to score every pass of a loop, ' +
        "1 line(s) added to make Kaggle's scratch folder, " +
        '1 line(s) of your own modules changed in the copy the kernel imports, ' +
        '1 write(s) into the data folder sent to the work folder, ' +
        "1 line(s) at or after the notebook's own exit not run, " +
        '1 del line(s) keeping what the added validation cell reads, ' +
        '1 call(s) of older library versions rewritten, ' +
        '1 input() call(s) given the answer saved with the cell, ' +
        '1 line(s) of cells that failed before you ran the cells below not run, ' +
        "1 name(s) of the notebook's own folder pointed at ./input, " +
        '1 debug switch(es) turned off, ' +
        "1 GPU setting(s) made the CPU's (no GPU here), " +
        '1 scoring(s) made to score the positive class, ' +
        '1 argument parser(s) given an empty command line, ' +
        '2 other change(s)'
    );
    expect(CHANGE_KINDS.map(([k]) => k)).toEqual(kinds);
    const unknownOnly = { understood: true, roles: {}, data_paths: [['b1', 'a', 'b', 'new']] };
    expect(describeEvent(ev('understanding', unknownOnly))).toBe(
      'Read your notebook: 0 cell(s); changed for this machine: 1 other change(s)'
    );
  });
  it('describes the validation split, or its absence', () => {
    const split = {
      file: 'val_index.csv',
      table: 'train.csv',
      rows: 114,
      n_labelled: 569,
      seed: 0
    };
    expect(describeEvent(ev('validation_split', split))).toBe(
      'Validation split: 114 of 569 labelled rows of train.csv (seed 0), scored by the harness'
    );
    expect(describeEvent(ev('validation_split', { file: 'val_index.csv', rows: 20 }))).toBe(
      'Validation split: 20 rows, scored by the harness'
    );
    expect(describeEvent(ev('validation_split', { ...split, kfold: true }))).toBe(
      'Validation split: 114 of 569 labelled rows of train.csv (seed 0), scored by the harness' +
        ' (or k-fold on every labelled row)'
    );
    expect(describeEvent(ev('validation_split', { file: null, rows: 0 }))).toBe(
      'No validation split held out: scores are the ones the notebooks print'
    );
  });
  it('says why a candidate was not started', () => {
    const skipped = {
      node_id: 'p0-merge2',
      label: 'merge init: random_forest',
      reason: 'estimated 27.6 s > the 0.9 s it may run'
    };
    expect(describeEvent(ev('skipped', skipped))).toBe(
      'Skipped merge init: random_forest: estimated 27.6 s > the 0.9 s it may run'
    );
    expect(describeEvent(ev('skipped', { node_id: 'n7' }))).toBe('Skipped n7');
  });
  it('skips noise', () => {
    expect(describeEvent(ev('llm_call', { role: 'coder' }))).toBeNull();
    expect(describeEvent(ev('leakage', { leaky: false }))).toBeNull();
    expect(describeEvent(ev('something_new', {}))).toBeNull();
  });
});

describe('RunSummary', () => {
  it('tracks phase, best score and the cursor across pages', () => {
    const s = new RunSummary('maximize');
    s.add(
      [
        ev('phase', { phase: 'init' }, 0),
        ev('candidate', { phase: 'init', score: 0.7, ok: true }, 1)
      ],
      2
    );
    s.add(
      [
        ev('candidate', { phase: 'init', score: 0.9, ok: true }, 2),
        ev('candidate', { phase: 'init', score: 0.8, ok: true }, 3)
      ],
      4
    );
    expect(s.phase).toBe('init');
    expect(s.bestScore).toBe(0.9);
    expect(s.scores).toEqual([0.7, 0.9, 0.8]);
    expect(s.cursor).toBe(4);
    // A page repeating seen events changes nothing.
    s.add([ev('candidate', { phase: 'init', score: 0.99, ok: true }, 3)], 4);
    expect(s.bestScore).toBe(0.9);
    expect(s.lines).toHaveLength(4);
  });
  it('takes the lowest score for minimize metrics and ignores failures', () => {
    const s = new RunSummary('minimize');
    s.add([
      ev('candidate', { score: 3.1, ok: true }, 0),
      ev('candidate', { score: 0.1, ok: false }, 1),
      ev('candidate', { score: 2.5, ok: true }, 2)
    ]);
    expect(s.bestScore).toBe(2.5);
  });
  it('ends on run_finished', () => {
    const s = new RunSummary('maximize');
    s.add([ev('run_finished', { status: 'stopped', best_score: 0.5 }, 0)]);
    expect(s.finished).toBe('stopped');
    expect(s.phase).toBe('done');
    expect(s.bestScore).toBe(0.5);
  });
  it('reads odd field types as text and counts only lists', () => {
    const s = new RunSummary(null);
    s.add([ev('phase', { phase: 7 }, 0), ev('error', { message: null }, 1)]);
    expect(s.phase).toBe('7');
    expect(s.lastError).toBe('error');
    expect(describeEvent(ev('models', { cards: 'abc' }))).toBe('Retrieved 0 model(s)');
    expect(describeEvent(ev('models', { cards: [{}, {}] }))).toBe('Retrieved 2 model(s)');
  });
  it('keeps at most maxLines lines', () => {
    const s = new RunSummary(null, 3);
    s.add([0, 1, 2, 3, 4].map(i => ev('phase', { phase: `p${i}` }, i)));
    expect(s.lines).toEqual(['Phase: p2', 'Phase: p3', 'Phase: p4']);
  });
});

describe('statusLine', () => {
  it('shows status, phase, best score and proposal counts', () => {
    const s = new RunSummary('maximize');
    const line = statusLine(makeRun({ best_score: 0.8612 }), s, [
      makeProposal(),
      makeProposal({ proposal_id: 'p2', decision: 'accept' })
    ]);
    expect(line).toBe('running · phase refine · best accuracy 0.8612 ↑ · 2 proposals (1 pending)');
  });
  it('falls back to the events when the run has no score yet', () => {
    const s = new RunSummary('minimize');
    s.add([ev('phase', { phase: 'init' }, 0), ev('candidate', { score: 1.25, ok: true }, 1)]);
    const line = statusLine(makeRun({ phase: null, metric: 'rmse', direction: 'minimize' }), s, [
      makeProposal()
    ]);
    expect(line).toBe('running · phase init · best rmse 1.25 ↓ · 1 proposal (1 pending)');
  });
  it('says why a run ended without a better notebook, and treats that status as final', () => {
    const s = new RunSummary('maximize');
    s.add([
      ev(
        'run_finished',
        { status: 'no_improvement', best_score: 0.9, reason: 'no plan beat your notebook' },
        0
      )
    ]);
    expect(statusLine(makeRun({ status: 'no_improvement' }), s, [])).toBe(
      'no_improvement · phase refine · best accuracy 0.9 ↑ · 0 proposals · no plan beat your notebook'
    );
    const described = makeRun({ status: 'not_understood', message: 'no model fit found' });
    expect(statusLine(described, new RunSummary(), [])).toMatch(/· no model fit found$/);
    expect(
      isTerminal('not_understood') &&
        isTerminal('no_improvement') &&
        isTerminal('all_failed') &&
        isTerminal('timed_out')
    ).toBe(true);
  });
  it('shows a paused run as paused', () => {
    expect(statusLine(makeRun({ paused: true }), new RunSummary(), [])).toMatch(/^paused · /);
    expect(statusLine(makeRun({ paused: true, status: 'done' }), new RunSummary(), [])).toMatch(
      /^done · /
    );
  });
  it('says when there is no run', () => {
    expect(statusLine(null, new RunSummary(), [])).toMatch(/No MLE-STAR run/);
  });
});
