// The public Cloud API surface: models, request schemas, the operation catalogue, errors, the
// typed client and its helpers. Import from `cloud` (this file) rather than from the parts.
export * from './models';
export * from './requests';
export * from './operations';
export * from './action-input';
export * from './errors';
export * from './client';
export * from './logs';
export { REDACTED, Secret, collectSecretValues, redact, revealSecret } from './redact';
export { isLoopbackHost, parseBaseUrl, type ParsedBaseUrl } from './base-url';
export { userAgent } from './http';
