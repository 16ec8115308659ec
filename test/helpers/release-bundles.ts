// Workflow bundles of "the next release" for upgrade tests: the interpreter as it is in the tree,
// with workflows/step-kinds.ts swapped for a fixture that changes the commands a run emits.
import path from 'node:path';
import { NormalModuleReplacementPlugin } from 'webpack';
import { bundleWorkflows } from '../../worker/bundle';

const WORKFLOWS_DIR = path.resolve(__dirname, '..', '..', 'workflows');
const UPGRADE_FIXTURES = path.resolve(__dirname, '..', 'fixtures', 'upgrade');

export type NextRelease = 'guarded' | 'unguarded';

const FIXTURE: Record<NextRelease, string> = {
  guarded: path.join(UPGRADE_FIXTURES, 'next-release-step-kinds.ts'),
  unguarded: path.join(UPGRADE_FIXTURES, 'next-release-unguarded-step-kinds.ts'),
};

/** Bundles the next release into `outFile` and gives its path. */
export async function bundleNextRelease(release: NextRelease, outFile: string): Promise<string> {
  // Only the interpreter's own `./step-kinds` import is swapped; the fixture reaches the released
  // module by another path, so it can wrap it.
  const swap = new NormalModuleReplacementPlugin(
    /^\.\/step-kinds$/,
    (resource: { context: string; request: string }) => {
      if (path.resolve(resource.context) === WORKFLOWS_DIR) resource.request = FIXTURE[release];
    },
  );
  await bundleWorkflows({
    outFile,
    workflowsPath: require.resolve('../../workflows'),
    webpackConfigHook: (config) => ({ ...config, plugins: [...(config.plugins ?? []), swap] }),
  });
  return outFile;
}
