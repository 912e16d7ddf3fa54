/**
 * Find the cell of the open notebook that a proposal changes, and apply or undo the change.
 *
 * Works on a structural subset of `ICellModel`, so tests pass plain objects.
 */
import { IProposal } from './models';

/** The part of a cell model that matching and applying need (`ICellModel` fits). */
export interface ICellLike {
  readonly id: string;
  readonly type?: string;
  getMetadata(key: string): unknown;
  readonly sharedModel: {
    getSource(): string;
    setSource(source: string): void;
  };
}

/** How a proposal was matched to a cell. */
export type MatchKind = 'cell_id' | 'block_id';

/** The matched cell. */
export interface ICellMatch<C extends ICellLike = ICellLike> {
  cell: C;
  index: number;
  by: MatchKind;
}

/** `metadata.mlestar.block_id` of a cell, or null. */
export function blockIdOf(cell: ICellLike): string | null {
  const meta = cell.getMetadata('mlestar');
  if (meta && typeof meta === 'object') {
    const id = (meta as { [key: string]: unknown })['block_id'];
    return typeof id === 'string' ? id : null;
  }
  return null;
}

/**
 * The cell a proposal targets: the cell whose nbformat id equals `cell_id`, else the cell whose
 * `metadata.mlestar.block_id` equals `block_id`; null when neither is in the notebook.
 */
export function findProposalCell<C extends ICellLike>(
  cells: Iterable<C>,
  proposal: Pick<IProposal, 'cell_id' | 'block_id'>
): ICellMatch<C> | null {
  const list = Array.from(cells);
  if (proposal.cell_id) {
    const index = list.findIndex(c => c.id === proposal.cell_id);
    if (index >= 0) {
      return { cell: list[index], index, by: 'cell_id' };
    }
  }
  if (proposal.block_id) {
    const index = list.findIndex(c => blockIdOf(c) === proposal.block_id);
    if (index >= 0) {
      return { cell: list[index], index, by: 'block_id' };
    }
  }
  return null;
}

/** Normalise line endings and trailing whitespace so cosmetic differences do not count. */
export function sameSource(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/\r\n/g, '\n').replace(/\s+$/, '');
  return norm(a) === norm(b);
}

/** Whether the user edited the cell after the run read it (so accepting would overwrite edits). */
export function cellDrifted(cell: ICellLike, proposal: IProposal): boolean {
  const current = cell.sharedModel.getSource();
  return !sameSource(current, proposal.old_source) && !sameSource(current, proposal.new_source);
}
