// PostgreSQL for the native cluster: the OS package's binaries (installed with apt-get when missing
// and running as root), a data directory inside the cluster directory, listening on 127.0.0.1 only
// (no Unix socket), password authentication (scram-sha-256). As root, initdb and pg_ctl run as the
// `postgres` user (PostgreSQL refuses to run as root). pg_ctl daemonises the postmaster, so it
// outlives the CLI; `stop` is pg_ctl's fast shutdown.
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  appendFileSync,
} from 'node:fs';
import path from 'node:path';
import { StackError } from '../stack/stack-error';
import { isOurProcess, runCommand } from './processes';
import type { ClusterPaths, ClusterState } from './state';

const PG_ROOT = '/usr/lib/postgresql';

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** The directory holding initdb/pg_ctl: TIDELINE_POSTGRES_BIN, or the newest /usr/lib/postgresql/N/bin. */
export function findPostgresBin(env: NodeJS.ProcessEnv): string | undefined {
  const explicit = env.TIDELINE_POSTGRES_BIN;
  if (explicit) return existsSync(path.join(explicit, 'initdb')) ? explicit : undefined;
  if (!existsSync(PG_ROOT)) return undefined;
  const versions = readdirSync(PG_ROOT)
    .filter((name) => /^\d+$/.test(name) && existsSync(path.join(PG_ROOT, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(PG_ROOT, versions[0], 'bin');
}

/** Finds PostgreSQL, installing the OS package with apt-get when missing and running as root. */
export async function ensurePostgresBin(
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<string> {
  const found = findPostgresBin(env);
  if (found) return found;
  if (!isRoot() || !existsSync('/usr/bin/apt-get')) {
    throw new StackError(
      'POSTGRES_UNAVAILABLE',
      'PostgreSQL (initdb, pg_ctl) was not found',
      'install it (e.g. `sudo apt-get install postgresql`), or set TIDELINE_POSTGRES_BIN to the directory holding initdb and pg_ctl',
    );
  }
  log('tideline: installing PostgreSQL with apt-get (once)…');
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = ['install', '-y', '--no-install-recommends', 'postgresql'];
  let result = await runCommand('apt-get', install, { env: aptEnv, timeoutMs: 600_000 });
  if (result.status !== 0) {
    await runCommand('apt-get', ['update'], { env: aptEnv, timeoutMs: 600_000 });
    result = await runCommand('apt-get', install, { env: aptEnv, timeoutMs: 600_000 });
  }
  const installed = findPostgresBin(env);
  if (result.status !== 0 || installed === undefined) {
    throw new StackError(
      'POSTGRES_UNAVAILABLE',
      `apt-get install postgresql failed (exit ${result.status}): ${result.output.slice(-1500)}`,
      'install PostgreSQL yourself, or set TIDELINE_POSTGRES_BIN',
    );
  }
  return installed;
}

/** The command line that runs a PostgreSQL tool as the right user. */
function asPostgres(bin: string, tool: string, args: string[]): [string, string[]] {
  const file = path.join(bin, tool);
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
}

function postgresOwner(): { uid: number; gid: number } | undefined {
  if (!isRoot()) return undefined;
  const passwd = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((line) => line.startsWith('postgres:'));
  const fields = passwd?.split(':');
  if (fields?.[2] === undefined || fields[3] === undefined) {
    throw new StackError(
      'POSTGRES_UNAVAILABLE',
      'running as root, but there is no `postgres` user to run PostgreSQL as',
    );
  }
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

/** Creates the data directory (initdb) unless it exists; the superuser is the cluster's user. */
export async function initPostgres(paths: ClusterPaths, state: ClusterState, bin: string): Promise<boolean> {
  if (existsSync(path.join(paths.pgData, 'PG_VERSION'))) return false;
  const pgDir = path.dirname(paths.pgData);
  mkdirSync(pgDir, { recursive: true });
  const owner = postgresOwner();
  const pwFile = path.join(pgDir, `pwfile.${process.pid}`);
  writeFileSync(pwFile, `${state.postgres.password}\n`, { mode: 0o600 });
  if (owner) {
    chmodSync(paths.dir, 0o711); // the postgres user must reach its directory (a mkdtemp dir is 0700)
    chownSync(pgDir, owner.uid, owner.gid);
    chownSync(pwFile, owner.uid, owner.gid);
  }
  try {
    const [cmd, args] = asPostgres(bin, 'initdb', [
      '-D',
      paths.pgData,
      '-U',
      state.postgres.user,
      `--pwfile=${pwFile}`,
      '--auth=scram-sha-256',
      '-E',
      'UTF8',
      '--locale=C',
    ]);
    const result = await runCommand(cmd, args, { timeoutMs: 180_000 });
    if (result.status !== 0) {
      rmSync(paths.pgData, { recursive: true, force: true });
      throw new StackError(
        'POSTGRES_UNAVAILABLE',
        `initdb failed (exit ${result.status}): ${result.output.slice(-1500)}`,
        owner
          ? 'PostgreSQL runs as the `postgres` user, which must be able to enter the cluster directory (every parent directory needs o+x); choose another --dir'
          : undefined,
      );
    }
  } finally {
    rmSync(pwFile, { force: true });
  }
  appendFileSync(
    path.join(paths.pgData, 'postgresql.conf'),
    [
      '',
      '# tideline cluster',
      "listen_addresses = '127.0.0.1'",
      `port = ${state.ports.postgres}`,
      "unix_socket_directories = ''",
      'max_connections = 200',
      '',
    ].join('\n'),
  );
  return true;
}

/** The postmaster's pid while it runs (from postmaster.pid, checked against /proc). */
export function postgresPid(paths: ClusterPaths): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(paths.pgData, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return isOurProcess(pid, paths.pgData) ? pid : undefined;
  } catch {
    return undefined;
  }
}

export async function startPostgres(paths: ClusterPaths, bin: string): Promise<number> {
  const running = postgresPid(paths);
  if (running !== undefined) return running;
  const [cmd, args] = asPostgres(bin, 'pg_ctl', [
    '-D',
    paths.pgData,
    '-l',
    paths.pgLog,
    '-w',
    '-t',
    '90',
    'start',
  ]);
  const result = await runCommand(cmd, args, { timeoutMs: 120_000 });
  const pid = postgresPid(paths);
  if (result.status !== 0 || pid === undefined) {
    let log = '';
    try {
      log = readFileSync(paths.pgLog, 'utf8').slice(-1500);
    } catch {
      // no log yet
    }
    throw new StackError(
      'POSTGRES_UNAVAILABLE',
      `PostgreSQL did not start (exit ${result.status}): ${result.output.trim()}\n${log}`,
    );
  }
  return pid;
}

/** Fast shutdown (open transactions rolled back, data flushed); resolves once it is down. */
export async function stopPostgres(paths: ClusterPaths, bin: string | undefined): Promise<boolean> {
  if (postgresPid(paths) === undefined) return false;
  const pgBin = bin ?? findPostgresBin(process.env);
  if (pgBin === undefined)
    throw new StackError('POSTGRES_UNAVAILABLE', 'PostgreSQL runs, but pg_ctl was not found to stop it');
  const [cmd, args] = asPostgres(pgBin, 'pg_ctl', [
    '-D',
    paths.pgData,
    '-m',
    'fast',
    '-w',
    '-t',
    '60',
    'stop',
  ]);
  const result = await runCommand(cmd, args, { timeoutMs: 90_000 });
  if (result.status !== 0 && postgresPid(paths) !== undefined) {
    throw new StackError('POSTGRES_UNAVAILABLE', `pg_ctl stop failed: ${result.output.trim()}`);
  }
  return true;
}
