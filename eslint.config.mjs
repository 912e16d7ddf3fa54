// ESLint flat config for the labextension (TypeScript) and the Galata UI tests.
// Modelled on the JupyterLab extension template: eslint + typescript-eslint recommended rules, with
// the formatting rules left to Prettier (eslint-config-prettier turns off those that would clash).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'coverage/',
      'labextension/coverage/',
      'labextension/lib/',
      'mlestar_jupyter/labextension/',
      'node_modules/',
      'ui-tests/node_modules/',
      'ui-tests/playwright-report/',
      'ui-tests/test-results/',
      '**/*.d.ts'
    ]
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
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
      '@typescript-eslint/no-unused-vars': ['warn', { args: 'none' }],
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
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { ...globals.node }
    },
    rules: {
      '@typescript-eslint/no-require-imports': 'off'
    }
  },
  prettier
);
