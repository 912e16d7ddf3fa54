import { blockIdOf, cellDrifted, findProposalCell, sameSource } from '../matching';
import { FakeCell, makeProposal } from './fixtures';

const cells = () => [
  new FakeCell('cell-1', 'import pandas as pd', 'b1'),
  new FakeCell('cell-2', 'model = LogisticRegression()', 'b2'),
  new FakeCell('cell-3', 'print(score)', 'b3'),
  new FakeCell('md-1', '# notes')
];

describe('findProposalCell', () => {
  it('matches by nbformat cell id first', () => {
    const match = findProposalCell(cells(), makeProposal({ cell_id: 'cell-3', block_id: 'b2' }));
    expect(match?.index).toBe(2);
    expect(match?.by).toBe('cell_id');
  });
  it('falls back to metadata.mlestar.block_id when the id is unknown', () => {
    const match = findProposalCell(cells(), makeProposal({ cell_id: 'gone', block_id: 'b2' }));
    expect(match?.index).toBe(1);
    expect(match?.by).toBe('block_id');
  });
  it('falls back to block_id when cell_id is null', () => {
    const match = findProposalCell(cells(), makeProposal({ cell_id: null, block_id: 'b3' }));
    expect(match?.cell.id).toBe('cell-3');
  });
  it('returns null when neither matches', () => {
    expect(findProposalCell(cells(), makeProposal({ cell_id: 'x', block_id: 'b9' }))).toBeNull();
    expect(findProposalCell(cells(), makeProposal({ cell_id: null, block_id: null }))).toBeNull();
  });
  it('reads block ids only from metadata.mlestar', () => {
    expect(blockIdOf(new FakeCell('a', '', 'b7'))).toBe('b7');
    expect(blockIdOf(new FakeCell('a', ''))).toBeNull();
  });
});

describe('drift', () => {
  it('ignores line endings and trailing blanks', () => {
    expect(sameSource('a\r\nb\n\n', 'a\nb')).toBe(true);
    expect(sameSource('a', 'b')).toBe(false);
  });
  it('flags a cell edited after the run read it', () => {
    const p = makeProposal();
    expect(cellDrifted(new FakeCell('c', p.old_source), p)).toBe(false);
    expect(cellDrifted(new FakeCell('c', p.new_source), p)).toBe(false);
    expect(cellDrifted(new FakeCell('c', 'model = SVC()'), p)).toBe(true);
  });
});
