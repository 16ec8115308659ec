// The local cloud's entry point (local-cloud/main.ts) compiled for tests that spawn it as a real
// process. Each caller gets its own output folder, inside the checkout so the compiled code
// resolves node_modules.
import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');

export interface LocalCloudBuild {
  /** The compiled local-cloud/main.js. */
  entry: string;
  remove(): Promise<void>;
}

export function compileLocalCloud(label: string): LocalCloudBuild {
  const outDir = join(root, 'node_modules', '.cache', `tideline-local-cloud-${label}-${process.pid}`);
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const args = ['--outDir', outDir, '--rootDir', root, '--module', 'node16', '--moduleResolution', 'node16'];
  args.push('--target', 'ES2022', '--strict', '--skipLibCheck', '--esModuleInterop', '--types', 'node');
  const build = spawnSync(process.execPath, [tsc, ...args, join(root, 'local-cloud', 'main.ts')], {
    encoding: 'utf8',
  });
  if (build.status !== 0)
    throw new Error(`compiling local-cloud/main.ts failed:\n${build.stdout}${build.stderr}`);
  return {
    entry: join(outDir, 'local-cloud', 'main.js'),
    remove: () => rm(outDir, { recursive: true, force: true }),
  };
}
