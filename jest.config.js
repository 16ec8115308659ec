// Jest runs the TypeScript sources directly; `npm run typecheck` does the type checking,
// so ts-jest only transpiles (isolatedModules) and stays fast.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', isolatedModules: true, diagnostics: false }],
  },
  testTimeout: 30_000,
  // Integration tests start servers and processes; two cores cannot run many at once.
  maxWorkers: 2,
};
