// ESLint flat config for the labextension (TypeScript) and the Galata UI tests.
// Modelled on the JupyterLab extension template: eslint + typescript-eslint recommended rules, with
// the formatting rules left to Prettier (eslint-config-prettier turns off those that would clash).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: [
      // Built, installed or run output (as in .gitignore).
      'bench-runs/',
      'bench_out/',
      'build/',
      'coverage/',
      'dist/',
      'labextension/coverage/',
      'labextension/lib/',
      'mlestar_jupyter/labextension/',
      'mlestar-bench/',
      'node_modules/',
      'runs/',
      'ui-tests/node_modules/',
      'ui-tests/playwright-report/',
      'ui-tests/test-results/',
      '**/*.d.ts'
    ]
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  // Before the project's rules: `curly: all` is safe with Prettier and must not be turned off.
  prettier,
  {
    files: ['**/*.ts'],
    languageOptions: {
      globals: { ...globals.browser }
    },
    rules: {
      '@typescript-eslint/naming-convention': [
        'error',
        {
          selector: 'interface',
          format: ['PascalCase'],
          custom: { regex: '^I[A-Z]', match: true }
        }
      ],
      '@typescript-eslint/no-unused-vars': ['error', { args: 'none' }],
      '@typescript-eslint/no-namespace': 'off',
      curly: ['error', 'all'],
      eqeqeq: ['error', 'smart'],
      'prefer-arrow-callback': 'error'
    }
  },
  {
    files: ['labextension/src/__tests__/**/*.ts'],
    languageOptions: {
      globals: { ...globals.jest, ...globals.node }
    }
  },
  {
    // The Node-side configs (jest, babel, Playwright); labextension/style/index.js is an ES module.
    files: ['*.js', 'ui-tests/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { ...globals.node }
    },
    rules: {
      '@typescript-eslint/no-require-imports': 'off'
    }
  }
);
