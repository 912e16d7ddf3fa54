import { ICellLike } from '../matching';
import { IDescribeRun, IProposal, IRunEvent } from '../models';

/** A plain cell with an nbformat id, optional block id and a source. */
export class FakeCell implements ICellLike {
  constructor(
    readonly id: string,
    source: string,
    blockId?: string
  ) {
    this._source = source;
    this._meta = blockId ? { mlestar: { block_id: blockId, role: 'code' } } : {};
  }
  getMetadata(key: string): unknown {
    return this._meta[key];
  }
  readonly sharedModel = {
    getSource: () => this._source,
    setSource: (s: string) => {
      this._source = s;
      this.writes.push(s);
    }
  };
  writes: string[] = [];
  private _source: string;
  private _meta: { [key: string]: unknown };
}

export function makeRun(overrides: Partial<IDescribeRun> = {}): IDescribeRun {
  return {
    run_id: 'r1',
    status: 'running',
    phase: 'refine',
    best_score: null,
    metric: 'accuracy',
    direction: 'maximize',
    notebook_path: 'work/solution.ipynb',
    task_dir: 'work',
    run_dir: '/tmp/runs/r1',
    started: 1000,
    elapsed: 5,
    pending_proposals: 0,
    paused: false,
    stop_requested: false,
    ...overrides
  };
}

export function makeProposal(overrides: Partial<IProposal> = {}): IProposal {
  return {
    proposal_id: 'p1',
    block_id: 'b2',
    cell_id: 'cell-2',
    old_source: 'model = LogisticRegression()',
    new_source: 'model = RandomForestClassifier(n_estimators=200)',
    plan: 'Use a random forest',
    score_before: 0.81,
    score_after: 0.86,
    decision: null,
    ...overrides
  };
}

let seq = 0;
export function ev(type: string, data: { [key: string]: unknown } = {}, at?: number): IRunEvent {
  const s = at ?? seq++;
  return { seq: s, key: `${type}-${s}`, type, data, time: 1000 + s };
}
