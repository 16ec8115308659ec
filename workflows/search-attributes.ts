// Re-exports the search attributes (contract/search-attributes.ts) for importers outside the
// contract's users (the worker, the dev server, tests, benches).
export * from '../contract/search-attributes';
