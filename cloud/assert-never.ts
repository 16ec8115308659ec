// Re-exports assertNever (contract/assert-never.ts) for code of the cloud client.
export { assertNever } from '../contract/assert-never';
