/**
 * Accept / reject one proposal: change the cell (accept only) and record the decision.
 *
 * Accept writes `new_source` through the cell's shared model (so the notebook's undo covers it)
 * and then POSTs the decision; when the POST fails the cell gets its previous source back, so
 * the notebook and the run never disagree. Reject only POSTs.
 */
import { IMlestarAPI, MlestarAPIError } from './api';
import { cellDrifted, findProposalCell, ICellLike, MatchKind } from './matching';
import { Decision, IProposal } from './models';

/** What a decision needs from its surroundings. */
export interface IDecisionContext {
  api: Pick<IMlestarAPI, 'decide'>;
  /** The cells of the open notebook (e.g. `notebook.model.cells`). */
  cells(): Iterable<ICellLike>;
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
  /** Index of the changed cell (accept only). */
  cellIndex?: number;
  matchedBy?: MatchKind;
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

  const match = findProposalCell(ctx.cells(), proposal);
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
      error instanceof MlestarAPIError || error instanceof Error
        ? error.message
        : String(error);
    throw new DecisionError(
      `Could not record "${decision}" for proposal ${pid}: ${detail}`,
      pid
    );
  }
}
