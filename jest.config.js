// Jest runs the TypeScript sources directly; `npm run typecheck` does the type checking,
// so ts-jest only transpiles (isolatedModules) and stays fast.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', isolatedModules: true, diagnostics: false }],
    // The CEL library ships ES modules only; Jest's module system needs them as CommonJS.
    '^.+/@marcbachmann/cel-js/.+\\.js$': [
      'ts-jest',
      {
        tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022' },
        isolatedModules: true,
        diagnostics: false,
      },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!@marcbachmann/cel-js/)'],
  testTimeout: 30_000,
  // dist/ and the workflow bundle are built once for the run, not once per test file.
  globalSetup: '<rootDir>/scripts/jest-global-setup.js',
  // Unit suites first, then integration suites.
  testSequencer: '<rootDir>/scripts/jest-test-sequencer.js',
  // Integration suites mostly wait (on lifecycles, timers, child processes): on two cores, two
  // workers left a third of the CPU idle (Jest 841 s); three use it (486 s). Tests hold under that
  // load; more would only queue for the CPU.
  maxWorkers: 3,
};
