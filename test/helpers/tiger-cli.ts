// Runs the vendor's CLI (tiger-cli, built by scripts/setup-tiger-cli.js) against a local cloud: a
// private config directory holding the credentials file, no analytics, update checks, docs MCP
// proxy, keyring or password storage, so every request it makes goes to the local cloud.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestCloud } from './local-cloud';

export interface TigerRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface TigerCli {
  /** The tiger executable. */
  readonly binary: string;
  readonly configDir: string;
  readonly env: Record<string, string>;
  run(...args: string[]): Promise<TigerRun>;
  /** Runs with `-o json` and parses stdout; throws with stderr when the command fails. */
  json<T = Record<string, unknown>>(...args: string[]): Promise<T>;
  /** Writes `<config dir>/credentials` as `tiger auth login` would with a file fallback. */
  writeCredentials(): void;
  close(): void;
}

export function tigerCli(binary: string, cloud: TestCloud): TigerCli {
  const configDir = mkdtempSync(join(tmpdir(), 'tideline-tiger-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: configDir,
    TIGER_CONFIG_DIR: configDir,
    TIGER_API_URL: cloud.url,
    TIGER_ANALYTICS: 'false',
    TIGER_VERSION_CHECK: 'false',
    TIGER_DOCS_MCP: 'false',
    TIGER_PASSWORD_STORAGE: 'none',
    TIGER_COLOR: 'false',
    // No reachable Secret Service, so credentials go to (and come from) the file in configDir.
    DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/tideline-no-dbus',
  };
  const run = (...args: string[]) =>
    new Promise<TigerRun>((resolve) => {
      execFile(
        binary,
        args,
        { env, timeout: 30_000, maxBuffer: 4 * 1024 * 1024 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
  return {
    binary,
    configDir,
    env,
    run,
    async json<T>(...args: string[]) {
      const result = await run(...args, '-o', 'json');
      if (result.code !== 0)
        throw new Error(`tiger ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout) as T;
    },
    writeCredentials() {
      const { access_key, secret_key, id } = cloud.project;
      const credentials = { api_key: `${access_key}:${secret_key}`, project_id: id };
      writeFileSync(join(configDir, 'credentials'), JSON.stringify(credentials), { mode: 0o600 });
    },
    close: () => rmSync(configDir, { recursive: true, force: true }),
  };
}
