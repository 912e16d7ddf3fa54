/**
 * Write the task folder and starting notebook the tests upload (see make_fixture.py).
 */
const { execFileSync } = require('child_process');
const os = require('os');
const path = require('path');
const fs = require('fs');

module.exports = async () => {
  const out = path.join(os.tmpdir(), 'mlestar-ui-fixture');
  fs.rmSync(out, { recursive: true, force: true });
  execFileSync(process.env.PYTHON || 'python', [path.join(__dirname, 'make_fixture.py'), out], {
    stdio: 'inherit',
    env: { ...process.env, OMP_NUM_THREADS: '1' }
  });
  process.env.MLESTAR_UI_FIXTURE = path.join(out, 'bc');
  process.env.MLESTAR_UI_OUTSIDER = path.join(out, 'outsider');
};
