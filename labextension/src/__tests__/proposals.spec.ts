import {
  acceptableGroups,
  cardState,
  gainOf,
  groupProposals,
  hasGain,
  offeredVersion
} from '../proposals';
import { makeProposal } from './fixtures';

const A = 'model = RF(n_estimators=3)';
const B = 'model = RF(n_estimators=6)';
const C = 'model = RF(n_estimators=12)';

/** The shape two parallel paths give: the same chain A → B → C from p0 and from p1. */
function twoPaths() {
  return [
    makeProposal({
      proposal_id: 'p0-t0',
      old_source: A,
      new_source: B,
      plan: 'Double the trees.',
      score_before: 0.57,
      score_after: 0.6
    }),
    makeProposal({
      proposal_id: 'p1-t0',
      old_source: A,
      new_source: B + '\n',
      plan: 'Double the trees.',
      score_before: 0.57,
      score_after: 0.6
    }),
    makeProposal({
      proposal_id: 'p0-t1',
      old_source: B,
      new_source: C,
      plan: 'Double the trees again.',
      score_before: 0.6,
      score_after: 0.69
    }),
    makeProposal({
      proposal_id: 'p1-t1',
      old_source: B,
      new_source: C,
      plan: 'Double the trees again.',
      score_before: 0.6,
      score_after: 0.69
    }),
    makeProposal({
      proposal_id: 'p0-t2',
      old_source: C,
      new_source: C + ' # same',
      plan: 'No gain.',
      score_before: 0.69,
      score_after: 0.69
    })
  ];
}

describe('gainOf / hasGain', () => {
  it('signs the gain by direction', () => {
    expect(gainOf(0.5, 0.6, 'maximize')).toBeCloseTo(0.1);
    expect(gainOf(2, 1.5, 'minimize')).toBeCloseTo(0.5);
    expect(gainOf(null, 1, 'maximize')).toBeNull();
  });
  it('offers changes only with a gain; added and removed cells always', () => {
    expect(hasGain(makeProposal({ score_before: 0.9, score_after: 0.9 }), 'maximize')).toBe(false);
    expect(hasGain(makeProposal({ score_before: 0.9, score_after: 0.8 }), 'maximize')).toBe(false);
    expect(hasGain(makeProposal({ score_before: 0.9, score_after: 0.8 }), 'minimize')).toBe(true);
    expect(hasGain(makeProposal({ score_before: null, score_after: null }), 'maximize')).toBe(true);
    expect(hasGain(makeProposal({ old_source: A, new_source: A + '\n' }), 'maximize')).toBe(false);
    expect(
      hasGain(makeProposal({ kind: 'insert', score_before: 0.9, score_after: 0.9 }), 'maximize')
    ).toBe(true);
  });
});

describe('groupProposals', () => {
  it('gives one group per cell, identical changes merged, the best first, no-gain left out', () => {
    const { groups, withoutGain } = groupProposals(twoPaths(), 'maximize');
    expect(groups).toHaveLength(1);
    expect(withoutGain.map(p => p.proposal_id)).toEqual(['p0-t2']);
    const [g] = groups;
    expect(g.versions).toHaveLength(2);
    const best = g.versions[0];
    expect(best.newSource).toBe(C);
    expect(best.proposals.map(p => p.proposal_id)).toEqual(['p0-t1', 'p1-t1']);
    expect(best.plans).toEqual(['Double the trees again.']);
    // The gain is against the cell as the run first read it (0.57), not the previous proposal.
    expect(best.gain).toBeCloseTo(0.12);
    expect(best.scoreAfter).toBeCloseTo(0.69);
    expect(g.versions[1].proposals.map(p => p.proposal_id)).toEqual(['p0-t0', 'p1-t0']);
    expect(g.bases).toEqual([A, B]);
  });
  it('keeps different cells apart and orders for minimize metrics', () => {
    const { groups } = groupProposals(
      [
        makeProposal({
          proposal_id: 'a',
          cell_id: 'c1',
          block_id: 'b1',
          new_source: 'x = 1',
          score_before: 2,
          score_after: 1.5
        }),
        makeProposal({
          proposal_id: 'b',
          cell_id: 'c2',
          block_id: 'b2',
          new_source: 'y = 1',
          score_before: 2,
          score_after: 1.8
        }),
        makeProposal({
          proposal_id: 'c',
          cell_id: 'c1',
          block_id: 'b1',
          new_source: 'x = 2',
          score_before: 2,
          score_after: 1.2
        })
      ],
      'minimize'
    );
    expect(groups.map(g => g.key)).toEqual(['cell:c1', 'cell:c2']);
    expect(groups[0].versions.map(v => v.newSource)).toEqual(['x = 2', 'x = 1']);
  });
  it('merges decisions: one accepted duplicate makes the version accepted', () => {
    const ps = twoPaths();
    ps[2].decision = 'accept';
    const { groups } = groupProposals(ps, 'maximize');
    expect(groups[0].versions[0].decision).toBe('accept');
    expect(offeredVersion(groups[0]).newSource).toBe(C);
  });
});

describe('cardState', () => {
  const group = () => groupProposals(twoPaths(), 'maximize').groups[0];
  it('is pending while the cell holds a source the run knows', () => {
    expect(cardState(group(), A)).toBe('pending');
    expect(cardState(group(), B)).toBe('pending');
  });
  it('is edited when the user changed the cell to something else', () => {
    expect(cardState(group(), 'model = SVC()')).toBe('edited');
  });
  it('follows undo: accepted while the cell holds the accepted source, pending after Ctrl+Z', () => {
    const ps = twoPaths();
    ps[2].decision = 'accept';
    ps[3].decision = 'accept';
    const g = groupProposals(ps, 'maximize').groups[0];
    expect(cardState(g, C)).toBe('accepted');
    expect(cardState(g, A)).toBe('pending');
  });
  it('is rejected when every version was', () => {
    const ps = twoPaths().map(p => ({ ...p, decision: 'reject' as const }));
    expect(cardState(groupProposals(ps, 'maximize').groups[0], A)).toBe('rejected');
  });
  it('Accept best takes only pending cards', () => {
    const { groups } = groupProposals(
      [
        makeProposal({ proposal_id: 'a', cell_id: 'c1', old_source: 'x', new_source: 'x1' }),
        makeProposal({ proposal_id: 'b', cell_id: 'c2', old_source: 'y', new_source: 'y1' }),
        makeProposal({ proposal_id: 'c', cell_id: 'c3', old_source: 'z', new_source: 'z1' })
      ],
      'maximize'
    );
    const current: { [k: string]: string } = {
      'cell:c1': 'x',
      'cell:c2': 'edited by me',
      'cell:c3': 'z'
    };
    expect(acceptableGroups(groups, g => current[g.key]).map(g => g.key)).toEqual([
      'cell:c1',
      'cell:c3'
    ]);
  });
});
