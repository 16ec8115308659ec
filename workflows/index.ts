// The workflow module the worker loads (and bundles). Only workflow functions are exported here.
export { runbookWorkflow } from './runbook-workflow';
export { resourceHeldLockWorkflow, resourceLockWorkflow, resourceMutexWorkflow } from './lock-workflow';
export { foreachBatchWorkflow } from './foreach-batch-workflow';
export { driftWatchWorkflow } from './drift-watch-workflow';
