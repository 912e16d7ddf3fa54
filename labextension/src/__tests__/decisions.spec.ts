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
    const cells = [
      new FakeCell('cell-1', 'a = 1', 'b1'),
      new FakeCell('cell-2', 'model = LogisticRegression()', 'b2')
    ];
    const api = fakeApi();
    const result = await decideProposal('r1', makeProposal(), 'accept', {
      api,
      cells: () => cells
    });
    expect(result).toEqual({
      proposalId: 'p1',
      decision: 'accept',
      cellIndex: 1,
      matchedBy: 'cell_id'
    });
    expect(cells[1].sharedModel.getSource()).toBe(
      'model = RandomForestClassifier(n_estimators=200)'
    );
    expect(cells[0].writes).toEqual([]);
    expect(api.calls).toEqual([['r1', 'p1', 'accept']]);
  });

  it('reject posts and leaves every cell unchanged', async () => {
    const cells = [new FakeCell('cell-2', 'model = LogisticRegression()', 'b2')];
    const api = fakeApi();
    const result = await decideProposal('r1', makeProposal(), 'reject', {
      api,
      cells: () => cells
    });
    expect(result.decision).toBe('reject');
    expect(cells[0].writes).toEqual([]);
    expect(api.calls).toEqual([['r1', 'p1', 'reject']]);
  });

  it('restores the cell when the decision cannot be recorded', async () => {
    const cells = [new FakeCell('cell-2', 'model = LogisticRegression()', 'b2')];
    const api = fakeApi(true);
    await expect(
      decideProposal('r1', makeProposal(), 'accept', { api, cells: () => cells })
    ).rejects.toThrow(/Could not record "accept" for proposal p1: Run r1 is unknown/);
    expect(cells[0].sharedModel.getSource()).toBe('model = LogisticRegression()');
  });

  it('refuses an accept whose cell is gone, without posting', async () => {
    const api = fakeApi();
    await expect(
      decideProposal('r1', makeProposal({ cell_id: 'x', block_id: 'b9' }), 'accept', {
        api,
        cells: () => []
      })
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
    const result = await decideProposal('r1', makeProposal(), 'accept', {
      api,
      cells: () => cells,
      confirmOverwrite
    });
    expect(confirmOverwrite).toHaveBeenCalledWith(
      expect.objectContaining({ proposal_id: 'p1' }),
      'model = SVC()  # my edit'
    );
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
        {
          id: 'cell-1',
          cell_type: 'code',
          source: 'x = 1',
          metadata: { mlestar: { block_id: 'b1' } },
          outputs: [],
          execution_count: null
        },
        {
          id: 'other-id',
          cell_type: 'code',
          source: 'model = LogisticRegression()',
          metadata: { mlestar: { block_id: 'b2' } },
          outputs: [],
          execution_count: null
        }
      ]
    });
    const api = fakeApi();
    const result = await decideProposal('r1', makeProposal(), 'accept', {
      api,
      cells: () => model.cells
    });
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

describe('decideProposal on added and removed cells', () => {
  /** A notebook of FakeCells with insert / delete, as the panel wires them. */
  function notebook(cells: FakeCell[]) {
    return {
      cells,
      ctx: {
        cells: () => cells,
        insertCell: (index: number, source: string, blockId: string | null) => {
          cells.splice(index, 0, new FakeCell(`new-${index}`, source, blockId ?? undefined));
        },
        deleteCell: (index: number) => {
          cells.splice(index, 1);
        }
      }
    };
  }
  const ids = (cells: FakeCell[]) => cells.map(c => c.sharedModel.getSource());
  const insert = (over: object = {}) =>
    makeProposal({
      kind: 'insert',
      block_id: 'b7',
      cell_id: 'c7',
      after_block_id: 'b1',
      after_cell_id: 'cell-1',
      old_source: '',
      new_source: 'import numpy as np',
      ...over
    });

  it('inserts an added cell right after its neighbour, with its block id', async () => {
    const nb = notebook([
      new FakeCell('cell-1', 'a = 1', 'b1'),
      new FakeCell('cell-2', 'b = 2', 'b2')
    ]);
    const api = fakeApi();
    const result = await decideProposal('r1', insert(), 'accept', { api, ...nb.ctx });
    expect(ids(nb.cells)).toEqual(['a = 1', 'import numpy as np', 'b = 2']);
    expect(nb.cells[1].getMetadata('mlestar')).toEqual({ block_id: 'b7', role: 'code' });
    expect(result).toMatchObject({ decision: 'accept', cellIndex: 1, matchedBy: 'inserted' });
    expect(api.calls).toEqual([['r1', 'p1', 'accept']]);
  });

  it('puts a cell with no neighbour before the first code cell, and at the end when the neighbour is gone', async () => {
    const md = new FakeCell('md', '# Title');
    (md as unknown as { type: string }).type = 'markdown';
    const nb = notebook([md, new FakeCell('cell-2', 'b = 2', 'b2')]);
    const top = insert({ after_block_id: null, after_cell_id: null });
    await decideProposal('r1', top, 'accept', { api: fakeApi(), ...nb.ctx });
    expect(ids(nb.cells)).toEqual(['# Title', 'import numpy as np', 'b = 2']);
    const orphan = insert({
      proposal_id: 'p2',
      block_id: 'b8',
      cell_id: 'c8',
      after_block_id: 'b5',
      after_cell_id: 'gone',
      new_source: 'z = 0'
    });
    await decideProposal('r1', orphan, 'accept', { api: fakeApi(), ...nb.ctx });
    expect(ids(nb.cells)[3]).toBe('z = 0');
  });

  it('takes the added cell back out when the server refuses the decision', async () => {
    const nb = notebook([new FakeCell('cell-1', 'a = 1', 'b1')]);
    await expect(
      decideProposal('r1', insert(), 'accept', { api: fakeApi(true), ...nb.ctx })
    ).rejects.toThrow(DecisionError);
    expect(ids(nb.cells)).toEqual(['a = 1']);
  });

  it('refuses to add a cell where the view cannot, with what to do instead', async () => {
    await expect(
      decideProposal('r1', insert(), 'accept', { api: fakeApi(), cells: () => [] })
    ).rejects.toThrow(/copy the proposed code by hand/);
  });

  it('an added cell already in the notebook is only recorded', async () => {
    const nb = notebook([new FakeCell('c7', 'import numpy as np', 'b7')]);
    const api = fakeApi();
    const result = await decideProposal('r1', insert(), 'accept', { api, ...nb.ctx });
    expect(nb.cells).toHaveLength(1);
    expect(result.matchedBy).toBe('cell_id');
  });

  it('deletes a removed cell, restores it on failure, and asks when the user edited it', async () => {
    const del = makeProposal({ kind: 'delete', old_source: 'print(1)', new_source: '' });
    const nb = notebook([
      new FakeCell('cell-1', 'a = 1', 'b1'),
      new FakeCell('cell-2', 'print(1)', 'b2')
    ]);
    await expect(
      decideProposal('r1', del, 'accept', { api: fakeApi(true), ...nb.ctx })
    ).rejects.toThrow(DecisionError);
    expect(ids(nb.cells)).toEqual(['a = 1', 'print(1)']);
    const result = await decideProposal('r1', del, 'accept', { api: fakeApi(), ...nb.ctx });
    expect(ids(nb.cells)).toEqual(['a = 1']);
    expect(result.matchedBy).toBe('deleted');

    const edited = notebook([new FakeCell('cell-2', 'print(2)  # mine', 'b2')]);
    const confirmOverwrite = jest.fn(async () => false);
    const kept = await decideProposal('r1', del, 'accept', {
      api: fakeApi(),
      ...edited.ctx,
      confirmOverwrite
    });
    expect(kept.decision).toBe('cancelled');
    expect(confirmOverwrite).toHaveBeenCalled();
    expect(edited.cells).toHaveLength(1);
  });

  it('a removed cell that is already gone is only recorded', async () => {
    const api = fakeApi();
    const del = makeProposal({ kind: 'delete', old_source: 'print(1)', new_source: '' });
    const result = await decideProposal('r1', del, 'accept', { api, cells: () => [] });
    expect(result.matchedBy).toBe('absent');
    expect(api.calls).toHaveLength(1);
  });

  it('inserts into a real notebook model', async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const model = new NotebookModel();
    model.fromJSON({
      nbformat: 4,
      nbformat_minor: 5,
      metadata: {},
      cells: [
        {
          id: 'cell-1',
          cell_type: 'code',
          source: 'x = 1',
          metadata: { mlestar: { block_id: 'b1' } },
          outputs: [],
          execution_count: null
        }
      ]
    });
    const result = await decideProposal('r1', insert(), 'accept', {
      api: fakeApi(),
      cells: () => model.cells,
      insertCell: (index, source, blockId) =>
        model.sharedModel.insertCell(index, {
          cell_type: 'code',
          source,
          metadata: { mlestar: { block_id: blockId } }
        }),
      deleteCell: index => model.sharedModel.deleteCell(index)
    });
    expect(result.cellIndex).toBe(1);
    expect(model.cells.length).toBe(2);
    expect(model.cells.get(1).sharedModel.getSource()).toBe('import numpy as np');
    expect(model.cells.get(1).getMetadata('mlestar')).toEqual({ block_id: 'b7' });
    model.dispose();
    warn.mockRestore();
  });
});
