import {
  drawAblations,
  drawEnsemble,
  drawTrajectory,
  drawTree,
  pathName,
  RunCharts
} from '../charts';
import { ev } from './fixtures';

function sample(): RunCharts {
  const c = new RunCharts();
  c.add(
    ev('run_started', {
      task: { metric_name: 'auc', direction: 'maximize' },
      config: { budget: { wall_seconds: 90 } }
    })
  );
  c.add(
    ev('candidate', { node_id: 'user', parent_id: null, phase: 'init', path: 'init', score: 0.57 })
  );
  c.add(
    ev('candidate', { node_id: 'p0-a', parent_id: 'user', phase: 'refine', path: 'p0', score: 0.6 })
  );
  c.add(
    ev('candidate', {
      node_id: 'p0-abl',
      parent_id: 'p0-a',
      phase: 'ablation',
      path: 'p0',
      score: 0.9
    })
  );
  c.add(
    ev('candidate', {
      node_id: 'p0-b',
      parent_id: 'p0-a',
      phase: 'refine',
      path: 'p0',
      score: 0.55
    })
  );
  c.add(
    ev('candidate', { node_id: 'p0-c', parent_id: 'p0-a', phase: 'refine', path: 'p0', ok: false })
  );
  c.add(
    ev('ablation', {
      path: 'p0',
      t: 1,
      baseline: 0.6,
      results: [
        { name: 'no scaling', delta: -0.02 },
        { name: 'no model', delta: 0.01 }
      ]
    })
  );
  c.add(ev('plan', { path: 'p1', t: 1, k: 0, block_id: 'b2', plan: 'More trees.' }));
  c.add(ev('ensemble_plan', { r: 0, plan: 'Average the two.', node_id: 'e0', score: 0.62 }));
  c.add(ev('ensemble_pick', { chosen: 'e0', label: 'ensemble r0', score: 0.62 }));
  return c;
}

describe('RunCharts', () => {
  it('folds the budget, candidates, the best line (solutions only), ablations and the ensemble', () => {
    const c = sample();
    expect(c.budgetSeconds).toBe(90);
    expect(c.metric).toBe('auc');
    expect(c.points.map(p => p[1])).toEqual([0.57, 0.6, 0.9, 0.55]);
    expect(c.bestLine).toEqual([
      [1, 0.57],
      [2, 0.6]
    ]);
    expect(c.bestNode).toBe('p0-a');
    expect(c.ablations.get('p0')!.bars).toEqual([
      { name: 'no scaling', delta: -0.02 },
      { name: 'no model', delta: 0.01 }
    ]);
    expect(c.plan).toEqual({ title: 'Ensemble round 0', plan: 'Average the two.', path: '' });
    expect(c.chosen).toEqual({ nodeId: 'e0', label: 'ensemble r0', score: 0.62 });
  });
  it('ignores fields of the wrong shape instead of taking them', () => {
    const c = new RunCharts('minimize');
    c.add(ev('run_started', { task: { metric_name: 3, direction: null }, config: 'x' }));
    c.add(ev('ablation', { path: 'p0', results: [null, { name: 'no model', delta: 'big' }] }));
    expect(c.metric).toBeNull();
    expect(c.direction).toBe('minimize');
    expect(c.budgetSeconds).toBeNull();
    expect(c.ablations.get('p0')!.bars).toEqual([
      { name: '?', delta: 0 },
      { name: 'no model', delta: 0 }
    ]);
  });
  it('reads empty paths as none', () => {
    expect(pathName('')).toBeNull();
    expect(pathName(null)).toBeNull();
    expect(pathName('p1')).toBe('p1');
  });
});

describe('draw*', () => {
  it('draws a dot per scored candidate and a best line', () => {
    const svg = drawTrajectory(sample());
    expect(svg.querySelectorAll('circle.mlestar-dot')).toHaveLength(4);
    expect(svg.querySelector('path.mlestar-best-line')).not.toBeNull();
  });
  it('draws one bar per ablation with its sign', () => {
    const box = drawAblations(sample());
    expect(box.querySelectorAll('rect.mlestar-bar-neg')).toHaveLength(1);
    expect(box.querySelectorAll('rect.mlestar-bar-pos')).toHaveLength(1);
    expect(box.textContent).toContain('path p0, t=1');
  });
  it('marks the chosen ensemble row and nests the tree', () => {
    expect(drawEnsemble(sample()).querySelector('tr.mlestar-chosen')?.textContent).toContain(
      '✔ chosen'
    );
    const tree = drawTree(sample());
    expect(
      tree.querySelector('[data-node="user"] [data-node="p0-a"] [data-node="p0-b"]')
    ).not.toBeNull();
    expect(tree.querySelector('[data-node="p0-a"]')?.textContent).toContain('★');
  });
  it('says what is missing before the first events', () => {
    const empty = new RunCharts();
    expect(drawTrajectory(empty).textContent).toMatch(/No scored candidate/);
    expect(drawEnsemble(empty).textContent).toMatch(/No ensemble/);
  });
});
