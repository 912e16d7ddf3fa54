/**
 * The flow on a notebook nobody on the team wrote: a student's `analysis.ipynb` with no MLE-STAR
 * metadata, beside `data/train.csv` and `data/test.csv`, no task.json and no README (see
 * make_fixture.py). The toolbar's dialog offers the notebook's folder and asks nothing more; the
 * real offline run reads the task from the notebook, and a proposal for one of the user's own
 * cells is accepted into that cell, the other cells left as they were.
 */
import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import type { NotebookPanel } from '@jupyterlab/notebook';

const NOTEBOOK = 'analysis.ipynb';
const RUN_TIMEOUT = 240 * 1000;

interface IProposal {
  proposal_id: string;
  cell_id: string | null;
  new_source: string;
  score_before: number | null;
  score_after: number | null;
}

test.use({ autoGoto: true, viewport: { width: 1280, height: 800 } });
test.setTimeout(360 * 1000);

/** Sources of the open notebook's cells, in order, with their nbformat ids. */
async function cells(page: IJupyterLabPageFixture): Promise<{ id: string; source: string }[]> {
  return page.evaluate(name => {
    const app = window.jupyterapp;
    const widgets = Array.from(app.shell.widgets('main')) as NotebookPanel[];
    const nb = widgets.find(w => w.context?.path?.endsWith(name) && w.content?.model);
    return Array.from(nb!.content.model!.cells).map(c => ({
      id: c.id,
      source: c.sharedModel.getSource()
    }));
  }, NOTEBOOK);
}

test("a user's own untagged notebook: the run reads its task, Accept changes that cell only", async ({
  page,
  tmpPath
}) => {
  const fixture = process.env.MLESTAR_UI_OUTSIDER;
  if (!fixture) {
    throw new Error('MLESTAR_UI_OUTSIDER is unset: global-setup.js did not run');
  }
  await page.contents.uploadDirectory(fixture, tmpPath);
  await page.filebrowser.openDirectory(tmpPath);
  await page.notebook.openByPath(`${tmpPath}/${NOTEBOOK}`);
  await page.notebook.activate(NOTEBOOK);
  const before = await cells(page);
  expect(before.length).toBe(6);

  await page.locator('.jp-NotebookPanel-toolbar [data-command="mlestar-jupyter:run"]').click();
  const dialog = page.locator('.jp-Dialog');
  // No task.json: the notebook's folder is offered, and the note for a described task is hidden.
  await expect(dialog.locator('input[name="mlestar-taskDir"]')).toHaveValue(tmpPath);
  await expect(dialog.locator('.mlestar-RunForm-taskNote')).toBeHidden();
  await dialog.locator('select[name="mlestar-backend"]').selectOption('offline');
  await dialog.locator('input[name="mlestar-timeBudget"]').fill('90s');
  await dialog.locator('input[name="mlestar-mode"][value="autopilot"]').check();
  await dialog.getByRole('button', { name: 'Run' }).click();

  const panel = page.locator('.mlestar-Panel');
  await expect(panel).toBeVisible();
  await expect(panel.locator('.mlestar-status')).toHaveAttribute('data-status', /done|stopped/, {
    timeout: RUN_TIMEOUT
  });

  // The run scored the notebook and proposed a better version of one of its own cells.
  const base = page.url().replace(/\/lab.*$/, '');
  const runs = await (
    await page.request.get(
      `${base}/mlestar/runs?notebook=${encodeURIComponent(`${tmpPath}/${NOTEBOOK}`)}`
    )
  ).json();
  expect(runs.length).toBeGreaterThan(0);
  const proposals = (await (
    await page.request.get(`${base}/mlestar/runs/${runs[0].run_id}/proposals`)
  ).json()) as IProposal[];
  const gainful = proposals.filter(
    p => p.score_after !== null && p.score_before !== null && p.score_after > p.score_before
  );
  expect(gainful.length, 'the run proposed an improvement').toBeGreaterThan(0);
  const ids = before.map(c => c.id);
  for (const p of gainful) {
    expect(ids, 'a proposal names a cell of the notebook').toContain(p.cell_id);
  }
  const best = gainful.reduce((a, b) => (a.score_after! >= b.score_after! ? a : b));
  const target = before.findIndex(c => c.id === best.cell_id);

  const card = panel.locator(`.mlestar-proposal[data-proposal-ids~="${best.proposal_id}"]`);
  await expect(card).toHaveCount(1);
  await card.locator('.mlestar-accept').first().click();
  await expect(card).toHaveAttribute('data-state', 'accepted');
  const after = await cells(page);
  expect(after.map(c => c.id)).toEqual(ids);
  after.forEach((c, i) => {
    if (i === target) {
      expect(c.source).toBe(best.new_source);
      expect(c.source).not.toBe(before[i].source);
    } else {
      expect(c.source, `cell ${i} unchanged`).toBe(before[i].source);
    }
  });
});
