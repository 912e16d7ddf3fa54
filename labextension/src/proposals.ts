/**
 * Proposals as a user reviews them: one card per cell.
 *
 * A run journals every kept improvement of a cell as its own proposal; with parallel paths the
 * same change often comes twice, and a chain of improvements of one cell gives proposals whose
 * base is the previous proposal. `groupProposals` folds them into one `ICellGroup` per cell:
 * identical changes merged into one `IVersion` (their plans and ids kept), versions without a
 * gain left out (they stay in the journal), the best version first.
 *
 * Pure functions only, so they are tested without a DOM.
 */
import { sameSource } from './matching';
import { Decision, IProposal, ProposalKind } from './models';
import { better } from './status';

/** One distinct change of a cell: every proposal that produced the same source. */
export interface IVersion {
  /** The proposals merged here (first one first); accepting a version decides all of them. */
  proposals: IProposal[];
  kind: ProposalKind;
  newSource: string;
  /** Distinct plans that produced this source, in order. */
  plans: string[];
  /** The lowest score the run started this change from (the cell as it first read it). */
  scoreBefore: number | null;
  scoreAfter: number | null;
  /** `scoreAfter - scoreBefore` signed so that positive is better; null when unknown. */
  gain: number | null;
  /** `accept` when any merged proposal was accepted, else `reject` when all were, else null. */
  decision: Decision | null;
}

/** Every version of one cell, the best first. */
export interface ICellGroup {
  /** `cell:<id>` or `block:<id>` or `proposal:<pid>` (stable across polls). */
  key: string;
  kind: ProposalKind;
  cellId: string | null;
  blockId: string | null;
  /** The sources the run read or produced for this cell (bases of the proposals). */
  bases: string[];
  /** Best first; never empty. */
  versions: IVersion[];
}

/** What `groupProposals` left out. */
export interface IGroupingResult {
  groups: ICellGroup[];
  /** Proposals whose score did not improve (no card; still in the journal). */
  withoutGain: IProposal[];
}

/** Signed gain (positive: better) of `after` over `before`, or null when one is unknown. */
export function gainOf(
  before: number | null | undefined,
  after: number | null | undefined,
  direction: string | null | undefined
): number | null {
  if (typeof before !== 'number' || typeof after !== 'number') {
    return null;
  }
  if (!Number.isFinite(before) || !Number.isFinite(after)) {
    return null;
  }
  return direction === 'minimize' ? before - after : after - before;
}

/** Whether a proposal is worth a card: added / removed cells always, changes only with a gain. */
export function hasGain(p: IProposal, direction: string | null | undefined): boolean {
  const kind = p.kind ?? 'change';
  if (kind !== 'change') {
    return true;
  }
  if (sameSource(p.old_source, p.new_source)) {
    return false;
  }
  const gain = gainOf(p.score_before, p.score_after, direction);
  // Unknown scores are offered (nothing says they are worse); a known zero or loss is not.
  return gain === null || gain > 1e-12;
}

function groupKey(p: IProposal): string {
  const kind = p.kind ?? 'change';
  if (kind === 'insert') {
    return `insert:${p.block_id ?? p.proposal_id}`;
  }
  if (p.cell_id) {
    return `cell:${p.cell_id}`;
  }
  if (p.block_id) {
    return `block:${p.block_id}`;
  }
  return `proposal:${p.proposal_id}`;
}

function norm(source: string): string {
  return source.replace(/\r\n/g, '\n').replace(/\s+$/, '');
}

function mergedDecision(proposals: IProposal[]): Decision | null {
  if (proposals.some(p => p.decision === 'accept')) {
    return 'accept';
  }
  if (proposals.length > 0 && proposals.every(p => p.decision === 'reject')) {
    return 'reject';
  }
  return null;
}

/** Whether version `a` should come before `b` (better score after; then earlier). */
function versionBefore(a: IVersion, b: IVersion, direction: string | null | undefined): boolean {
  if (a.scoreAfter === null) {
    return false;
  }
  if (b.scoreAfter === null) {
    return true;
  }
  return better(a.scoreAfter, b.scoreAfter, direction);
}

/**
 * One group per cell (in the order the cells were first proposed), versions merged by source,
 * best first; proposals without a gain are returned apart.
 */
export function groupProposals(
  proposals: IProposal[],
  direction: string | null | undefined
): IGroupingResult {
  const withoutGain: IProposal[] = [];
  const groups = new Map<string, ICellGroup>();
  for (const p of proposals) {
    if (!hasGain(p, direction)) {
      withoutGain.push(p);
      continue;
    }
    const key = groupKey(p);
    let group = groups.get(key);
    if (!group) {
      group = {
        key,
        kind: p.kind ?? 'change',
        cellId: p.cell_id,
        blockId: p.block_id,
        bases: [],
        versions: []
      };
      groups.set(key, group);
    }
    if (!group.bases.some(b => sameSource(b, p.old_source))) {
      group.bases.push(p.old_source);
    }
    const kind = p.kind ?? 'change';
    const target = kind === 'delete' ? '' : norm(p.new_source);
    let version = group.versions.find(v => v.kind === kind && norm(v.newSource) === target);
    if (!version) {
      version = {
        proposals: [],
        kind,
        newSource: p.new_source,
        plans: [],
        scoreBefore: p.score_before,
        scoreAfter: p.score_after,
        gain: null,
        decision: null
      };
      group.versions.push(version);
    }
    version.proposals.push(p);
    const plan = p.plan.trim();
    if (plan && !version.plans.includes(plan)) {
      version.plans.push(plan);
    }
    if (
      typeof p.score_before === 'number' &&
      (version.scoreBefore === null || better(version.scoreBefore, p.score_before, direction))
    ) {
      version.scoreBefore = p.score_before;
    }
    if (
      typeof p.score_after === 'number' &&
      (version.scoreAfter === null || better(p.score_after, version.scoreAfter, direction))
    ) {
      version.scoreAfter = p.score_after;
    }
  }
  for (const group of groups.values()) {
    const first = firstBase(group, direction);
    for (const v of group.versions) {
      v.decision = mergedDecision(v.proposals);
      v.gain = gainOf(first ?? v.scoreBefore, v.scoreAfter, direction);
    }
    group.versions.sort((a, b) =>
      versionBefore(a, b, direction) ? -1 : versionBefore(b, a, direction) ? 1 : 0
    );
  }
  return { groups: [...groups.values()], withoutGain };
}

/** The score of the cell as the run first read it (the worst `score_before` of the group). */
function firstBase(group: ICellGroup, direction: string | null | undefined): number | null {
  let worst: number | null = null;
  for (const v of group.versions) {
    for (const p of v.proposals) {
      if (
        typeof p.score_before === 'number' &&
        (worst === null || better(worst, p.score_before, direction))
      ) {
        worst = p.score_before;
      }
    }
  }
  return worst;
}

/** The card's state against the open notebook. */
export type CardState = 'pending' | 'accepted' | 'rejected' | 'edited';

/** The version a card offers: the accepted one if any, else the best. */
export function offeredVersion(group: ICellGroup): IVersion {
  return group.versions.find(v => v.decision === 'accept') ?? group.versions[0];
}

/**
 * Where a card stands given the cell's current source (`null`: the cell is not in the notebook):
 * - `accepted`: the cell holds an accepted version (Ctrl+Z turns it back to `pending`);
 * - `rejected`: every version was rejected;
 * - `edited`: the cell holds neither a base the run read nor one of its versions (the user
 *   changed it; accepting needs a comparison first);
 * - `pending`: otherwise.
 */
export function cardState(group: ICellGroup, current: string | null): CardState {
  const kind = group.kind;
  if (group.versions.every(v => v.decision === 'reject')) {
    return 'rejected';
  }
  const accepted = group.versions.filter(v => v.decision === 'accept');
  if (kind === 'insert') {
    return current !== null && accepted.length > 0 ? 'accepted' : 'pending';
  }
  if (kind === 'delete') {
    return current === null && accepted.length > 0 ? 'accepted' : 'pending';
  }
  if (current === null) {
    return 'pending';
  }
  if (accepted.some(v => sameSource(v.newSource, current))) {
    return 'accepted';
  }
  const known =
    group.bases.some(b => sameSource(b, current)) ||
    group.versions.some(v => sameSource(v.newSource, current));
  return known ? 'pending' : 'edited';
}

/** The groups that `Accept best` would accept: pending ones whose cell is as the run knew it. */
export function acceptableGroups(
  groups: ICellGroup[],
  currentOf: (group: ICellGroup) => string | null
): ICellGroup[] {
  return groups.filter(g => cardState(g, currentOf(g)) === 'pending');
}
