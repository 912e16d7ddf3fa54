const jestJupyterLab = require('@jupyterlab/testutils/lib/jest-config');

// ES modules shipped untranspiled that jest must transform (see shared/notes/jupyterlab.md).
const esModules = [
  '@codemirror',
  '@jupyter/',
  '@jupyterlab/',
  '@lezer',
  '@lumino/',
  '@marijn',
  '@microsoft',
  'color',
  'crelt',
  'exenv-es6',
  'lib0',
  'marked',
  'nanoid',
  'style-mod',
  'vscode-ws-jsonrpc',
  'w3c-keyname',
  'y-protocols',
  'y-websocket',
  'yjs'
].join('|');

const baseConfig = jestJupyterLab(__dirname);

module.exports = {
  ...baseConfig,
  automock: false,
  reporters: ['default'],
  roots: ['<rootDir>/labextension/src'],
  testRegex: '/__tests__/.*\\.spec\\.ts$',
  collectCoverageFrom: [
    'labextension/src/**/*.ts',
    '!labextension/src/**/*.d.ts',
    '!labextension/src/__tests__/**'
  ],
  transformIgnorePatterns: [`/node_modules/(?!${esModules}).+`]
};
