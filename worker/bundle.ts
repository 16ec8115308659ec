// Builds the production workflow bundles (`dist/workflow-bundle.js`, and the traced one beside it)
// once at build time, so workers start without running webpack. Run by scripts/bundle-workflows.js after `tsc`.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, type BundleOptions } from '@temporalio/worker';
import { FAILURE_CONVERTER_PATH } from './codec';
import {
  DEFAULT_WORKFLOW_BUNDLE,
  defaultWorkflowsPath,
  TRACED_WORKFLOW_BUNDLE,
  tracingWorkflowModules,
  workflowPreloadModules,
} from './workflow-source';

export async function bundleWorkflows(
  options: {
    outFile?: string;
    workflowsPath?: string;
    webpackConfigHook?: BundleOptions['webpackConfigHook'];
    /** With the tracing interceptors (worker/tracing.ts); default outFile the traced bundle. */
    traced?: boolean;
  } = {},
): Promise<{ outFile: string; bytes: number }> {
  const outFile = options.outFile ?? (options.traced ? TRACED_WORKFLOW_BUNDLE : DEFAULT_WORKFLOW_BUNDLE);
  const { code } = await bundleWorkflowCode({
    workflowsPath: options.workflowsPath ?? defaultWorkflowsPath(),
    ...(options.traced ? { workflowInterceptorModules: tracingWorkflowModules() } : {}),
    // The sandbox converts workflow failures itself, so it needs the encrypting converter too.
    failureConverterPath: FAILURE_CONVERTER_PATH,
    logger: new DefaultLogger('WARN'),
    preloadModules: workflowPreloadModules(),
    ...(options.webpackConfigHook ? { webpackConfigHook: options.webpackConfigHook } : {}),
  });
  mkdirSync(path.dirname(outFile), { recursive: true });
  const tmp = `${outFile}.${process.pid}.tmp`;
  writeFileSync(tmp, code);
  // rename is atomic: a worker starting meanwhile sees the old bundle or the new one, never half.
  renameSync(tmp, outFile);
  return { outFile, bytes: Buffer.byteLength(code) };
}
