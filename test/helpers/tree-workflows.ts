// The workflow code in the tree, for in-process workers and replays: the bundle Jest's global
// setup built from the tree for this run (scripts/jest-global-setup.js), or, when a test runs
// without it, the workflows module, bundled at worker start (a few seconds of webpack each time).
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowSource } from '../../worker/workflow-source';

const RUN_BUNDLE = path.resolve(__dirname, '..', '..', 'dist', 'workflow-bundle.js');

/** The bundle built for this test run, if there is one. */
export function runWorkflowBundle(): string | undefined {
  return process.env.TIDELINE_TEST_DIST_BUILT === '1' && existsSync(RUN_BUNDLE) ? RUN_BUNDLE : undefined;
}

export function treeWorkflows(): WorkflowSource {
  const codePath = runWorkflowBundle();
  return codePath !== undefined
    ? { workflowBundle: { codePath } }
    : { workflowsPath: require.resolve('../../workflows') };
}
