import { NotebookModel } from '@jupyterlab/notebook';

import { MlestarAPIError } from '../api';
import { decideProposal, DecisionError } from '../decisions';
import { Decision } from '../models';
import { FakeCell, makeProposal } from './fixtures';

function fakeApi(fail = false) {
  const calls: [string, string, Decision][] = [];
  return {
    calls,
    decide: jest.fn(async (runId: string, pid: string, decision: Decision) => {
      calls.push([runId, pid, decision]);
      if (fail) {
        throw new MlestarAPIError('Run r1 is unknown.', 404, 'x');
      }
      return {};
    })
  };
}

describe('decideProposal', () => {
  it('accept writes new_source into the matched cell, then posts', async () => {
    const cells = [new FakeCell('cell-1', 'a = 1', 'b1'), new FakeCell('cell-2', 'model = LogisticRegression()', 'b2')];
    const api = fakeApi();
    const result = await decideProposal('r1', makeProposal(), 'accept', { api, cells: () => cells });
    expect(result).toEqual({ proposalId: 'p1', decision: 'accept', cellIndex: 1, matchedBy: 'cell_id' });
    expect(cells[1].sharedModel.getSource()).toBe('model = RandomForestClassifier(n_estimators=200)');
    expect(cells[0].writes).toEqual([]);
    expect(api.calls).toEqual([['r1', 'p1', 'accept']]);
  });

  it('reject posts and leaves every cell unchanged', async () => {
    const cells = [new FakeCell('cell-2', 'model = LogisticRegression()', 'b2')];
    const api = fakeApi();
    const result = await decideProposal('r1', makeProposal(), 'reject', { api, cells: () => cells });
    expect(result.decision).toBe('reject');
    expect(cells[0].writes).toEqual([]);
    expect(api.calls).toEqual([['r1', 'p1', 'reject']]);
  });

  it('restores the cell when the decision cannot be recorded', async () => {
    const cells = [new FakeCell('cell-2', 'model = LogisticRegression()', 'b2')];
    const api = fakeApi(true);
    await expect(decideProposal('r1', makeProposal(), 'accept', { api, cells: () => cells })).rejects.toThrow(
      /Could not record "accept" for proposal p1: Run r1 is unknown/
    );
    expect(cells[0].sharedModel.getSource()).toBe('model = LogisticRegression()');
  });

  it('refuses an accept whose cell is gone, without posting', async () => {
    const api = fakeApi();
    await expect(
      decideProposal('r1', makeProposal({ cell_id: 'x', block_id: 'b9' }), 'accept', { api, cells: () => [] })
    ).rejects.toBeInstanceOf(DecisionError);
    expect(api.decide).not.toHaveBeenCalled();
  });

  it('refuses a proposal that already has a decision', async () => {
    const api = fakeApi();
    await expect(
      decideProposal('r1', makeProposal({ decision: 'reject' }), 'accept', { api, cells: () => [] })
    ).rejects.toThrow(/already rejected/);
    expect(api.decide).not.toHaveBeenCalled();
  });

  it('asks before overwriting a user edit and keeps it when declined', async () => {
    const cells = [new FakeCell('cell-2', 'model = SVC()  # my edit', 'b2')];
    const api = fakeApi();
    const confirmOverwrite = jest.fn(async () => false);
    const result = await decideProposal('r1', makeProposal(), 'accept', { api, cells: () => cells, confirmOverwrite });
    expect(confirmOverwrite).toHaveBeenCalledWith(expect.objectContaining({ proposal_id: 'p1' }), 'model = SVC()  # my edit');
    expect(result.decision).toBe('cancelled');
    expect(cells[0].sharedModel.getSource()).toBe('model = SVC()  # my edit');
    expect(api.decide).not.toHaveBeenCalled();
  });

  it('works on a real notebook model and the change is undoable', async () => {
    // yjs warns about reads before the document is attached; irrelevant here.
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const model = new NotebookModel();
    model.fromJSON({
      nbformat: 4,
      nbformat_minor: 5,
      metadata: {},
      cells: [
        { id: 'cell-1', cell_type: 'code', source: 'x = 1', metadata: { mlestar: { block_id: 'b1' } }, outputs: [], execution_count: null },
        { id: 'other-id', cell_type: 'code', source: 'model = LogisticRegression()', metadata: { mlestar: { block_id: 'b2' } }, outputs: [], execution_count: null }
      ]
    });
    const api = fakeApi();
    const result = await decideProposal('r1', makeProposal(), 'accept', { api, cells: () => model.cells });
    expect(result.matchedBy).toBe('block_id');
    const cell = model.cells.get(1);
    expect(cell.sharedModel.getSource()).toBe('model = RandomForestClassifier(n_estimators=200)');
    expect(model.dirty).toBe(true);
    cell.sharedModel.undo();
    expect(cell.sharedModel.getSource()).toBe('model = LogisticRegression()');
    model.dispose();
    warn.mockRestore();
  });
});
