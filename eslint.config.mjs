import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Stand-ins for another release's workflow code in the upgrade tests (not code that ships).
const RELEASE_FIXTURES = 'test/fixtures/upgrade/**';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.tools/', 'coverage/', 'bench/build/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      'no-restricted-exports': ['error', { restrictDefaultExports: { direct: true, named: true } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Workflow code asks for patches through the release gate (hasPatch, workflows/release-gate.ts),
    // which alone calls Temporal's patched(): a raw call elsewhere would record a marker the gate
    // does not know of, and change which patches a run takes.
    files: ['**/*.ts'],
    ignores: ['workflows/release-gate.ts', RELEASE_FIXTURES],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@temporalio/workflow',
              importNames: ['patched'],
              message: 'Ask for patches with hasPatch (workflows/release-gate.ts), never patched().',
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.type='MemberExpression'][callee.property.name='patched']",
          message: 'Ask for patches with hasPatch (workflows/release-gate.ts), never patched().',
        },
      ],
    },
  },
  {
    // ESLint's own config file must export its config as the default export.
    files: ['eslint.config.mjs'],
    rules: { 'no-restricted-exports': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        __dirname: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
