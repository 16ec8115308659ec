// Re-exports the run messages (contract/run-messages.ts) for importers outside the contract's users
// (tests, benches, the worker).
export * from '../contract/run-messages';
