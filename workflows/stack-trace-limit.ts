// How many frames a stack trace captured in the workflow sandbox holds. The SDK's promise hook
// captures and formats a stack trace for every promise workflow code creates (for its stack-trace
// query); at V8's default of 10 frames that took about a fifth of the worker's CPU per run of a
// provisioning (docs/performance.md). Three frames keep a failure's throw site and its two callers.
// Preloaded into the shared workflow context (worker/workflow-source.ts), so this runs once, before
// the SDK freezes the context's globals; it changes no command a run emits.
export const WORKFLOW_STACK_TRACE_LIMIT = 3;

(Error as unknown as { stackTraceLimit: number }).stackTraceLimit = WORKFLOW_STACK_TRACE_LIMIT;
