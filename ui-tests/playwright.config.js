/**
 * Galata configuration: Debian's Chromium (no Playwright browser download), no video or trace
 * (they need an ffmpeg that cannot be fetched here). The server is started by `jlpm start`.
 */
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');

module.exports = {
  ...baseConfig,
  timeout: 300 * 1000,
  expect: { timeout: 30 * 1000 },
  retries: 0,
  workers: 1,
  reporter: [['list']],
  globalSetup: require.resolve('./global-setup.js'),
  use: {
    ...baseConfig.use,
    video: 'off',
    trace: 'off',
    launchOptions: {
      executablePath: process.env.MLESTAR_CHROMIUM || '/usr/bin/chromium',
      args: ['--no-sandbox']
    }
  },
  webServer: {
    command: 'jlpm start',
    url: 'http://localhost:8888/lab',
    timeout: 120 * 1000,
    reuseExistingServer: !process.env.CI
  }
};
