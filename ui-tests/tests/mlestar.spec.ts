/**
 * The real flow on the example notebook with the offline backend: click "MLE-STAR" → the panel
 * shows live scores → a proposal appears → Accept changes the cell / Reject leaves it as it was.
 *
 * Runs use step-through mode, so the agent waits on the first proposal until the test decides.
 */
import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import { Locator } from '@playwright/test';
import * as path from 'path';

const NOTEBOOK = 'solution.ipynb';
const PROPOSAL_TIMEOUT = 240 * 1000;

interface IProposal {
  proposal_id: string;
  block_id: string | null;
  cell_id: string | null;
  old_source: string;
  new_source: string;
  decision: string | null;
}

test.use({
  autoGoto: true,
  viewport: { width: 1600, height: 1000 }
});
test.setTimeout(360 * 1000);

/** Upload the task folder + notebook, open it, start a run through the dialog. */
async function startRun(page: IJupyterLabPageFixture, tmpPath: string): Promise<Locator> {
  const fixture = process.env.MLESTAR_UI_FIXTURE;
  if (!fixture) {
    throw new Error('MLESTAR_UI_FIXTURE is unset: global-setup.js did not run');
  }
  await page.contents.uploadDirectory(fixture, tmpPath);
  await page.filebrowser.openDirectory(tmpPath);
  await page.notebook.openByPath(`${tmpPath}/${NOTEBOOK}`);
  await page.notebook.activate(NOTEBOOK);

  await page.locator('.jp-NotebookPanel-toolbar [data-command="mlestar-jupyter:run"]').click();
  const dialog = page.locator('.jp-Dialog');
  // metadata.mlestar.task is "." → the notebook's own folder.
  await expect(dialog.locator('input[name="mlestar-taskDir"]')).toHaveValue(tmpPath);
  await dialog.locator('select[name="mlestar-backend"]').selectOption('offline');
  await dialog.locator('input[name="mlestar-timeBudget"]').fill('4m');
  await dialog.locator('input[name="mlestar-mode"][value="step"]').check();
  await dialog.getByRole('button', { name: 'Run' }).click();

  const panel = page.locator('.mlestar-Panel');
  await expect(panel).toBeVisible();
  // Live status from REST: a best score appears once the first candidate is scored.
  await expect(panel.locator('.mlestar-status')).toContainText(/best .*\d/, {
    timeout: PROPOSAL_TIMEOUT
  });
  return panel;
}

/** Sources of the open notebook's cells, keyed by nbformat cell id. */
async function cellSources(page: IJupyterLabPageFixture): Promise<{ [id: string]: string }> {
  return page.evaluate(() => {
    const app = (window as any).jupyterapp;
    const widgets = Array.from(app.shell.widgets('main')) as any[];
    const nb = widgets.find(w => w.context?.path?.endsWith('solution.ipynb') && w.content?.model);
    const out: { [id: string]: string } = {};
    for (const cell of Array.from(nb.content.model.cells) as any[]) {
      out[cell.id] = cell.sharedModel.getSource();
    }
    return out;
  });
}

/** The run's proposals as the server has them. */
async function serverProposals(page: IJupyterLabPageFixture, tmpPath: string): Promise<IProposal[]> {
  const base = page.url().replace(/\/lab.*$/, '');
  const runs = await (
    await page.request.get(`${base}/mlestar/runs?notebook=${encodeURIComponent(`${tmpPath}/${NOTEBOOK}`)}`)
  ).json();
  expect(runs.length).toBeGreaterThan(0);
  const run = runs[runs.length - 1];
  return (await page.request.get(`${base}/mlestar/runs/${run.run_id}/proposals`)).json();
}

/** Wait for the first pending proposal card; return it with the server's proposal. */
async function firstProposal(
  page: IJupyterLabPageFixture,
  panel: Locator,
  tmpPath: string
): Promise<{ card: Locator; proposal: IProposal }> {
  const card = panel.locator('.mlestar-proposal[data-decision="pending"]').first();
  await expect(card).toBeVisible({ timeout: PROPOSAL_TIMEOUT });
  await expect(panel.locator('.mlestar-status')).toContainText(/\d+ proposals? \(\d+ pending\)/);
  await expect(card.locator('.mlestar-Diff .cm-editor')).toBeVisible();
  const pid = await card.getAttribute('data-proposal-id');
  const proposal = (await serverProposals(page, tmpPath)).find(p => p.proposal_id === pid);
  expect(proposal).toBeDefined();
  // The fixture's small forest leaves room for a real change (more / deeper trees).
  expect(proposal!.new_source).not.toBe(proposal!.old_source);
  return { card, proposal: proposal! };
}

test('Accept writes the proposal into the cell; reopening shows the run', async ({ page, tmpPath }) => {
  const panel = await startRun(page, tmpPath);
  const { card, proposal } = await firstProposal(page, panel, tmpPath);

  // The ipywidgets RunPanel drawn by the notebook's kernel (trusted output → real widgets).
  await expect(panel.locator('.mlestar-kernel-widgets .jupyter-widgets').first()).toBeVisible({
    timeout: 120 * 1000
  });
  await panel.screenshot({ path: path.join(__dirname, '..', 'test-results', 'panel.png') });

  const before = await cellSources(page);
  const target = proposal.cell_id && proposal.cell_id in before ? proposal.cell_id : null;
  expect(target).not.toBeNull();
  expect(before[target!]).toBe(proposal.old_source);

  await card.locator('.mlestar-accept').click();
  await expect(panel.locator(`.mlestar-proposal[data-proposal-id="${proposal.proposal_id}"]`)).toHaveAttribute(
    'data-decision',
    'accept'
  );
  const after = await cellSources(page);
  expect(after[target!]).toBe(proposal.new_source);
  for (const id of Object.keys(before).filter(id => id !== target)) {
    expect(after[id]).toBe(before[id]);
  }
  await expect
    .poll(async () => (await serverProposals(page, tmpPath)).find(p => p.proposal_id === proposal.proposal_id)?.decision)
    .toBe('accept');

  // Reopening the notebook shows its run's state.
  await page.evaluate(async () => {
    const app = (window as any).jupyterapp;
    const nb = (Array.from(app.shell.widgets('main')) as any[]).find(w =>
      w.context?.path?.endsWith('solution.ipynb')
    );
    await nb.context.save();
    nb.close();
  });
  await expect(page.locator('.mlestar-Panel')).toHaveCount(0);
  await page.notebook.openByPath(`${tmpPath}/${NOTEBOOK}`);
  const reopened = page.locator('.mlestar-Panel');
  await expect(reopened.locator('.mlestar-status')).toContainText(/best .*\d/);
  await expect(reopened.locator(`.mlestar-proposal[data-proposal-id="${proposal.proposal_id}"]`)).toHaveAttribute(
    'data-decision',
    'accept'
  );
  await reopened.locator('.mlestar-stop').click();
});

test('Reject records the decision and leaves the cell unchanged', async ({ page, tmpPath }) => {
  const panel = await startRun(page, tmpPath);
  const { card, proposal } = await firstProposal(page, panel, tmpPath);
  const before = await cellSources(page);

  await card.locator('.mlestar-reject').click();
  await expect(panel.locator(`.mlestar-proposal[data-proposal-id="${proposal.proposal_id}"]`)).toHaveAttribute(
    'data-decision',
    'reject'
  );
  await expect
    .poll(async () => (await serverProposals(page, tmpPath)).find(p => p.proposal_id === proposal.proposal_id)?.decision)
    .toBe('reject');
  expect(await cellSources(page)).toEqual(before);
  expect(await page.locator('.jp-Notebook .jp-Cell').count()).toBe(Object.keys(before).length);
  await panel.locator('.mlestar-stop').click();
  await expect(panel.locator('.mlestar-status')).toContainText(/^(stopped|done)/, { timeout: 60 * 1000 });
});
