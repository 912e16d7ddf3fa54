/**
 * Accept / reject one proposal: change, add or remove the cell (accept only) and record the
 * decision.
 *
 * Accept edits the notebook through its shared model (so the notebook's undo covers it) and then
 * POSTs the decision; when the POST fails the edit is taken back, so the notebook and the run
 * never disagree. Reject only POSTs.
 */
import { IMlestarAPI, MlestarAPIError } from './api';
import { cellDrifted, findProposalCell, ICellLike, MatchKind, sameSource } from './matching';
import { Decision, IProposal } from './models';

/** What a decision needs from its surroundings. */
export interface IDecisionContext {
  api: Pick<IMlestarAPI, 'decide'>;
  /** The cells of the open notebook (e.g. `notebook.model.cells`). */
  cells(): Iterable<ICellLike>;
  /** Add a code cell at `index` (needed to accept a cell the run added). */
  insertCell?(index: number, source: string, blockId: string | null): void;
  /** Remove the cell at `index` (needed to accept a cell the run removed). */
  deleteCell?(index: number): void;
  /**
   * Asked when the user edited the cell after the run read it; resolve false to keep the
   * user's edit. Without it such an accept goes ahead.
   */
  confirmOverwrite?(proposal: IProposal, current: string): Promise<boolean>;
}

/** What happened. */
export interface IDecisionResult {
  proposalId: string;
  decision: Decision | 'cancelled';
  /** Index of the changed or added cell (accept only; the neighbour of a removed one). */
  cellIndex?: number;
  matchedBy?: MatchKind | 'inserted' | 'deleted' | 'absent';
}

/** A decision that could not be carried out; the message says why and what to do. */
export class DecisionError extends Error {
  constructor(
    message: string,
    readonly proposalId: string
  ) {
    super(message);
    this.name = 'DecisionError';
  }
}

/** Apply `decision` to `proposal` of run `runId`. */
export async function decideProposal(
  runId: string,
  proposal: IProposal,
  decision: Decision,
  ctx: IDecisionContext
): Promise<IDecisionResult> {
  const pid = proposal.proposal_id;
  if (proposal.decision) {
    throw new DecisionError(
      `Proposal ${pid} was already ${proposal.decision}ed; refresh the panel.`,
      pid
    );
  }
  if (decision === 'reject') {
    await post(ctx, runId, pid, 'reject');
    return { proposalId: pid, decision: 'reject' };
  }

  const kind = proposal.kind ?? 'change';
  const match = findProposalCell(ctx.cells(), proposal);
  if (kind === 'insert' && !match) {
    return insertCell(runId, proposal, ctx);
  }
  if (kind === 'delete') {
    return deleteCell(runId, proposal, match, ctx);
  }
  if (!match) {
    throw new DecisionError(
      `Proposal ${pid}: no cell with id ${proposal.cell_id ?? '(none)'} or block ` +
        `${proposal.block_id ?? '(none)'} in this notebook. Was the cell deleted? ` +
        'Reject it, or copy the proposed code by hand.',
      pid
    );
  }
  const previous = match.cell.sharedModel.getSource();
  if (cellDrifted(match.cell, proposal) && ctx.confirmOverwrite) {
    const ok = await ctx.confirmOverwrite(proposal, previous);
    if (!ok) {
      return { proposalId: pid, decision: 'cancelled' };
    }
  }
  match.cell.sharedModel.setSource(proposal.new_source);
  try {
    await post(ctx, runId, pid, 'accept');
  } catch (error) {
    match.cell.sharedModel.setSource(previous);
    throw error;
  }
  return {
    proposalId: pid,
    decision: 'accept',
    cellIndex: match.index,
    matchedBy: match.by
  };
}

/** Accept a cell the run added: insert it after its neighbour (or before the first code cell). */
async function insertCell(
  runId: string,
  proposal: IProposal,
  ctx: IDecisionContext
): Promise<IDecisionResult> {
  const pid = proposal.proposal_id;
  if (!ctx.insertCell || !ctx.deleteCell) {
    throw new DecisionError(
      `Proposal ${pid} adds a cell, which this view cannot do; copy the proposed code by hand.`,
      pid
    );
  }
  const cells = Array.from(ctx.cells());
  const hasAnchor = Boolean(proposal.after_cell_id || proposal.after_block_id);
  const anchor = hasAnchor
    ? findProposalCell(cells, {
        cell_id: proposal.after_cell_id ?? null,
        block_id: proposal.after_block_id ?? null
      })
    : null;
  let index: number;
  if (anchor) {
    index = anchor.index + 1;
  } else if (hasAnchor) {
    index = cells.length; // the neighbour is gone: add it at the end
  } else {
    const firstCode = cells.findIndex(c => (c.type ?? 'code') === 'code');
    index = firstCode >= 0 ? firstCode : cells.length;
  }
  ctx.insertCell(index, proposal.new_source, proposal.block_id);
  try {
    await post(ctx, runId, pid, 'accept');
  } catch (error) {
    ctx.deleteCell(index);
    throw error;
  }
  return { proposalId: pid, decision: 'accept', cellIndex: index, matchedBy: 'inserted' };
}

/** Accept a cell the run removed: delete it (asking first when the user edited it). */
async function deleteCell(
  runId: string,
  proposal: IProposal,
  match: ReturnType<typeof findProposalCell>,
  ctx: IDecisionContext
): Promise<IDecisionResult> {
  const pid = proposal.proposal_id;
  if (!match) {
    await post(ctx, runId, pid, 'accept'); // already gone
    return { proposalId: pid, decision: 'accept', matchedBy: 'absent' };
  }
  if (!ctx.insertCell || !ctx.deleteCell) {
    throw new DecisionError(
      `Proposal ${pid} removes a cell, which this view cannot do; delete cell ` +
        `${proposal.block_id ?? match.index} by hand.`,
      pid
    );
  }
  const previous = match.cell.sharedModel.getSource();
  if (!sameSource(previous, proposal.old_source) && ctx.confirmOverwrite) {
    if (!(await ctx.confirmOverwrite(proposal, previous))) {
      return { proposalId: pid, decision: 'cancelled' };
    }
  }
  ctx.deleteCell(match.index);
  try {
    await post(ctx, runId, pid, 'accept');
  } catch (error) {
    ctx.insertCell(match.index, previous, proposal.block_id);
    throw error;
  }
  return { proposalId: pid, decision: 'accept', cellIndex: match.index, matchedBy: 'deleted' };
}

async function post(
  ctx: IDecisionContext,
  runId: string,
  pid: string,
  decision: Decision
): Promise<void> {
  try {
    await ctx.api.decide(runId, pid, decision);
  } catch (error) {
    const detail =
      error instanceof MlestarAPIError || error instanceof Error ? error.message : String(error);
    throw new DecisionError(`Could not record "${decision}" for proposal ${pid}: ${detail}`, pid);
  }
}
