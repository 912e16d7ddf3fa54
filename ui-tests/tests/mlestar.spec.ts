/**
 * The real flow on the fixture notebook with the offline backend, at 1280×800 in Chromium.
 *
 * 1. Autopilot: the toolbar item and dialog (labelled, radios show state), the save notice, the
 *    progress bar from the first seconds, every chart visible (bounding boxes, inside the
 *    viewport after scrolling) during and after the run, one card for the two paths' identical
 *    changes, Accept scrolls to and highlights the cell, Ctrl+Z turns the card back to pending.
 * 2. Step-through: Reject records the decision and leaves the cell; reopening shows the run.
 */
import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import type { NotebookPanel } from '@jupyterlab/notebook';
import { Locator, Page } from '@playwright/test';
import * as path from 'path';

const NOTEBOOK = 'solution.ipynb';
const RUN_TIMEOUT = 240 * 1000;
const SHOTS = path.join(__dirname, '..', 'test-results');
const CHARTS = ['trajectory', 'ablation', 'ensemble', 'tree'];
/** Suffix of the proposal id of a twin (see `twinProposals`). */
const TWIN = '-twin';

/**
 * The offline backend's two paths do not always find the same change. When the run's first
 * improving proposal has no identical sibling, the panel is also given its twin, as a second path
 * would journal it (same cell, same source, another id), to check that identical changes make
 * one card.
 */
/** The best improving proposal of the first cell the run improved (the fixture maximizes). */
function bestOfFirstCell(list: IProposal[]): IProposal | undefined {
  const gainful = list.filter(
    p => p.score_after !== null && p.score_before !== null && p.score_after > p.score_before
  );
  return gainful
    .filter(p => p.cell_id === gainful[0]?.cell_id)
    .reduce<IProposal | undefined>(
      (a, b) => (a && a.score_after! >= b.score_after! ? a : b),
      undefined
    );
}

async function twinProposals(page: Page): Promise<void> {
  await page.route(/\/mlestar\/runs\/[^/]+\/proposals(\?.*)?$/, async route => {
    if (route.request().method() !== 'GET') {
      return route.continue();
    }
    const response = await route.fetch();
    const list = (await response.json()) as IProposal[];
    const first = bestOfFirstCell(list);
    const twinned = list.some(
      p =>
        first &&
        p !== first &&
        p.cell_id === first.cell_id &&
        p.new_source.trim() === first.new_source.trim()
    );
    const json =
      first && !twinned
        ? [...list, { ...first, proposal_id: `${first.proposal_id}${TWIN}`, decision: null }]
        : list;
    await route.fulfill({ response, json });
  });
}

interface IProposal {
  proposal_id: string;
  block_id: string | null;
  cell_id: string | null;
  old_source: string;
  new_source: string;
  score_before: number | null;
  score_after: number | null;
  decision: string | null;
}

test.use({
  autoGoto: true,
  viewport: { width: 1280, height: 800 }
});
test.setTimeout(360 * 1000);

/** Upload the task folder + notebook and open it. */
async function openFixture(page: IJupyterLabPageFixture, tmpPath: string): Promise<void> {
  const fixture = process.env.MLESTAR_UI_FIXTURE;
  if (!fixture) {
    throw new Error('MLESTAR_UI_FIXTURE is unset: global-setup.js did not run');
  }
  await page.contents.uploadDirectory(fixture, tmpPath);
  await page.filebrowser.openDirectory(tmpPath);
  await page.notebook.openByPath(`${tmpPath}/${NOTEBOOK}`);
  await page.notebook.activate(NOTEBOOK);
}

/** Fill the dialog (after the toolbar click) and press Run. */
async function runDialog(
  page: Page,
  tmpPath: string,
  budget: string,
  mode: 'autopilot' | 'step'
): Promise<void> {
  const dialog = page.locator('.jp-Dialog');
  await expect(dialog.locator('input[name="mlestar-taskDir"]')).toHaveValue(tmpPath);
  await dialog.locator('select[name="mlestar-backend"]').selectOption('offline');
  await dialog.locator('input[name="mlestar-timeBudget"]').fill(budget);
  await dialog.locator(`input[name="mlestar-mode"][value="${mode}"]`).check();
  await dialog.getByRole('button', { name: 'Run' }).click();
}

/** Sources of the open notebook's cells, keyed by nbformat cell id. */
async function cellSources(page: IJupyterLabPageFixture): Promise<{ [id: string]: string }> {
  return page.evaluate(() => {
    const app = window.jupyterapp;
    const widgets = Array.from(app.shell.widgets('main')) as NotebookPanel[];
    const nb = widgets.find(w => w.context?.path?.endsWith('solution.ipynb') && w.content?.model);
    const out: { [id: string]: string } = {};
    for (const cell of Array.from(nb!.content.model!.cells)) {
      out[cell.id] = cell.sharedModel.getSource();
    }
    return out;
  });
}

/** The run's proposals as the server has them. */
async function serverProposals(
  page: IJupyterLabPageFixture,
  tmpPath: string
): Promise<IProposal[]> {
  const base = page.url().replace(/\/lab.*$/, '');
  const runs = await (
    await page.request.get(
      `${base}/mlestar/runs?notebook=${encodeURIComponent(`${tmpPath}/${NOTEBOOK}`)}`
    )
  ).json();
  expect(runs.length).toBeGreaterThan(0);
  const run = runs[0]; // newest first
  return (await page.request.get(`${base}/mlestar/runs/${run.run_id}/proposals`)).json();
}

/** Scroll a chart section into view and check it is drawn, tall enough and inside the viewport. */
async function expectChartVisible(page: Page, panel: Locator, key: string): Promise<void> {
  const section = panel.locator(`.mlestar-section[data-section="${key}"]`);
  const body = section.locator('.mlestar-section-body');
  await panel.locator(`.mlestar-nav-link[data-section="${key}"]`).click();
  await body.scrollIntoViewIfNeeded();
  await expect(body).toBeVisible();
  const box = await body.boundingBox();
  expect(box, `${key} has a box`).not.toBeNull();
  expect(box!.height, `${key} height`).toBeGreaterThan(50);
  const viewport = page.viewportSize()!;
  expect(box!.y, `${key} top`).toBeGreaterThanOrEqual(0);
  expect(box!.y, `${key} top inside the viewport`).toBeLessThan(viewport.height - 50);
  expect(box!.x + box!.width, `${key} right edge`).toBeLessThanOrEqual(viewport.width + 1);
  await expect(section.locator('h3')).toBeVisible();
}

/** A screenshot of the page (notebook + panel: its top, or `section`) `seconds` into the run. */
async function screenshotAt(
  page: Page,
  panel: Locator,
  started: number,
  seconds: number,
  name: string,
  section?: string
): Promise<void> {
  const wait = seconds * 1000 - (Date.now() - started);
  if (wait > 0) {
    await page.waitForTimeout(wait);
  }
  const status = await panel.locator('.mlestar-status').getAttribute('data-status');
  console.log(`${name}: run ${status} at ${Math.round((Date.now() - started) / 1000)} s`);
  await panel.evaluate(el => el.scrollTo({ top: 0 }));
  if (section) {
    await panel.locator(`.mlestar-nav-link[data-section="${section}"]`).click();
  }
  await page.screenshot({ path: path.join(SHOTS, name) });
}

test('autopilot: visible charts, one card per cell, Accept highlights, Ctrl+Z flips back', async ({
  page,
  tmpPath
}) => {
  await twinProposals(page);
  await openFixture(page, tmpPath);
  // An unsaved edit: the run must say that it saves the notebook.
  await page.evaluate(() => {
    const app = window.jupyterapp;
    const nb = (Array.from(app.shell.widgets('main')) as NotebookPanel[]).find(w =>
      w.context?.path?.endsWith('solution.ipynb')
    );
    const first = nb!.content.model!.cells.get(0);
    first.sharedModel.setSource(first.sharedModel.getSource() + '\n\nReviewed with MLE-STAR.');
  });

  // The labelled toolbar item with a tooltip.
  const item = page.locator('.jp-NotebookPanel-toolbar [data-command="mlestar-jupyter:run"]');
  await expect(item).toContainText('MLE-STAR');
  const tooltip = await item.evaluate(
    el => el.getAttribute('title') ?? el.querySelector('[title]')?.getAttribute('title') ?? ''
  );
  expect(tooltip).toMatch(/Run the MLE-STAR agent/);
  await item.click();

  // The dialog: the unit is said; the radios show which one is selected.
  const dialog = page.locator('.jp-Dialog');
  await expect(dialog.locator('.mlestar-RunForm-unit')).toContainText('minutes');
  const auto = dialog.locator('label.mlestar-choice', {
    has: page.locator('input[value="autopilot"]')
  });
  const step = dialog.locator('label.mlestar-choice', { has: page.locator('input[value="step"]') });
  await step.click();
  await expect(step).toHaveAttribute('data-checked', 'true');
  await expect(auto).toHaveAttribute('data-checked', 'false');
  const border = (l: Locator) => l.evaluate(el => getComputedStyle(el).borderColor);
  expect(await border(step)).not.toBe(await border(auto));
  await auto.click();
  await expect(auto).toHaveAttribute('data-checked', 'true');
  await expect(step).toHaveAttribute('data-checked', 'false');
  // The fixture folder has its task.json: the target and metric fields (for a folder without
  // one) are hidden, and a note says where they come from.
  await expect(dialog.locator('.mlestar-RunForm-taskNote')).toBeVisible();
  await expect(dialog.locator('input[name="mlestar-target"]')).toBeHidden();
  await runDialog(page, tmpPath, '90s', 'autopilot');

  const panel = page.locator('.mlestar-Panel');
  await expect(panel).toBeVisible();
  const started = Date.now();
  await expect(panel.locator('.mlestar-notice')).toContainText('Saved');
  // The progress bar from the first seconds.
  const progress = panel.locator('.mlestar-progress');
  await expect(progress).toBeVisible({ timeout: 5000 });
  await expect(panel.locator('.mlestar-progress-text')).toContainText(/of 1m 30s/, {
    timeout: 10000
  });
  expect((await progress.boundingBox())!.height).toBeGreaterThan(10);

  await screenshotAt(page, panel, started, 20, 'panel-20s.png');

  // During the run: every chart section visible, then again once a candidate is scored.
  for (const key of CHARTS) {
    await expectChartVisible(page, panel, key);
  }
  await expect(panel.locator('.mlestar-trajectory circle').first()).toBeAttached({
    timeout: RUN_TIMEOUT
  });
  if ((await panel.locator('.mlestar-status').getAttribute('data-status')) === 'running') {
    for (const key of CHARTS) {
      await expectChartVisible(page, panel, key);
    }
  }
  await screenshotAt(page, panel, started, 60, 'panel-60s.png', 'ablation');

  // After the run: every chart again, with content.
  await expect(panel.locator('.mlestar-status')).toHaveAttribute('data-status', /done|stopped/, {
    timeout: RUN_TIMEOUT
  });
  await expect(panel.locator('.mlestar-pause')).toBeHidden();
  for (const key of CHARTS) {
    await expectChartVisible(page, panel, key);
  }
  await expect(panel.locator('.mlestar-tree .mlestar-node').first()).toBeVisible();
  await expect(panel.locator('.mlestar-trajectory .mlestar-best-line')).toBeAttached();

  // One card per changed cell; the twin of a proposal (as a second path gives it) merged in.
  const proposals = await serverProposals(page, tmpPath);
  const gainful = proposals.filter(
    p => p.score_after !== null && p.score_before !== null && p.score_after > p.score_before
  );
  expect(gainful.length, 'the run proposed an improvement').toBeGreaterThan(0);
  const cells = new Set(gainful.map(p => p.cell_id));
  const cards = panel.locator('.mlestar-proposal');
  await expect(cards).toHaveCount(cells.size);
  const best = bestOfFirstCell(proposals)!;
  const twin = panel.locator(`.mlestar-proposal[data-proposal-ids~="${best.proposal_id}"]`);
  await expect(twin).toHaveCount(1);
  await expect(twin.locator('.mlestar-proposal-score').first()).toContainText(
    /proposed [2-9]× \(identical\)/
  );
  const card = twin;
  await expect(card).toHaveAttribute('data-state', 'pending');
  await panel.locator('.mlestar-section[data-section="proposals"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'panel-end.png') });

  // Accept: the cell gets the best version, is scrolled to and highlighted.
  const cellId = best.cell_id!;
  await card.locator('.mlestar-accept').first().click();
  await expect(card).toHaveAttribute('data-state', 'accepted');
  expect((await cellSources(page))[cellId]).toBe(best.new_source);
  const index = await page.evaluate(id => {
    const app = window.jupyterapp;
    const nb = (Array.from(app.shell.widgets('main')) as NotebookPanel[]).find(w =>
      w.context?.path?.endsWith('solution.ipynb')
    );
    return Array.from(nb!.content.model!.cells).findIndex(c => c.id === id);
  }, cellId);
  const cell = page.locator('.jp-NotebookPanel .jp-Notebook .jp-Cell').nth(index);
  await expect(cell).toHaveClass(/mlestar-highlight/);
  await expect(cell).toBeInViewport();

  // Ctrl+Z in the cell takes the change back and the card follows.
  await cell.locator('.cm-content').click();
  await page.keyboard.press('Control+z');
  await expect.poll(async () => (await cellSources(page))[cellId]).not.toBe(best.new_source);
  await expect(card).toHaveAttribute('data-state', 'pending');
  // Accept again: the decision stands, the cell gets the change back.
  await card.locator('.mlestar-accept').first().click();
  await expect(card).toHaveAttribute('data-state', 'accepted');
  expect((await cellSources(page))[cellId]).toBe(best.new_source);
});

test('step-through: Reject leaves the cell; reopening shows the run', async ({ page, tmpPath }) => {
  await openFixture(page, tmpPath);
  // The cell context menu runs on that cell's block only.
  const b2 = await page.evaluate(() => {
    const app = window.jupyterapp;
    const nb = (Array.from(app.shell.widgets('main')) as NotebookPanel[]).find(w =>
      w.context?.path?.endsWith('solution.ipynb')
    );
    return Array.from(nb!.content.model!.cells).findIndex(
      c => c.getMetadata('mlestar')?.block_id === 'b2'
    );
  });
  expect(b2).toBeGreaterThan(0);
  const modelCell = page.locator('.jp-NotebookPanel .jp-Notebook .jp-Cell').nth(b2);
  await modelCell.locator('.jp-InputPrompt').click();
  await modelCell.locator('.jp-InputPrompt').click({ button: 'right' });
  await page.locator('.lm-Menu-item', { hasText: 'Refine this cell with MLE-STAR' }).click();
  await expect(page.locator('.jp-Dialog .mlestar-RunForm-scope')).toContainText('cell b2');
  await runDialog(page, tmpPath, '4m', 'step');
  const panel = page.locator('.mlestar-Panel');
  const card = panel.locator('.mlestar-proposal[data-state="pending"]').first();
  await expect(card).toBeVisible({ timeout: RUN_TIMEOUT });
  await expect(card.locator('.mlestar-Diff .cm-editor')).toBeVisible();
  const ids = ((await card.getAttribute('data-proposal-ids')) ?? '').split(' ');
  const before = await cellSources(page);

  await card.locator('.mlestar-reject').click();
  await expect(panel.locator('.mlestar-proposal').first()).toHaveAttribute(
    'data-state',
    'rejected'
  );
  await expect
    .poll(async () =>
      (await serverProposals(page, tmpPath))
        .filter(p => ids.includes(p.proposal_id))
        .map(p => p.decision)
    )
    .toEqual(ids.map(() => 'reject'));
  expect(await cellSources(page)).toEqual(before);

  // Reopening the notebook shows its run's state.
  await page.evaluate(async () => {
    const app = window.jupyterapp;
    const nb = (Array.from(app.shell.widgets('main')) as NotebookPanel[]).find(w =>
      w.context?.path?.endsWith('solution.ipynb')
    );
    await nb!.context.save();
    nb!.close();
  });
  await expect(page.locator('.mlestar-Panel')).toHaveCount(0);
  await page.notebook.openByPath(`${tmpPath}/${NOTEBOOK}`);
  const reopened = page.locator('.mlestar-Panel');
  await expect(
    reopened.locator(`.mlestar-proposal[data-proposal-ids~="${ids[0]}"]`)
  ).toBeAttached();
  await expect(reopened.locator('.mlestar-progress')).toBeVisible();
  await reopened.locator('.mlestar-stop').click();
  await expect(reopened.locator('.mlestar-status')).toHaveAttribute('data-status', /stopped|done/, {
    timeout: 60 * 1000
  });
});
