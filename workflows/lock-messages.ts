// Re-exports the lock messages (contract/lock-messages.ts) for importers outside the contract's
// users (tests).
export * from '../contract/lock-messages';
