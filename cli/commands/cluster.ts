/* eslint-disable @typescript-eslint/no-require-imports -- the cluster modules load on use, so --help stays fast */
// `tideline cluster up|down|status`: a production-style Temporal (the pinned server on PostgreSQL)
// run by tideline itself on 127.0.0.1. The work is in cluster/; this entry parses arguments
// and prints: the first stdout line is one JSON object, progress goes to stderr.
import path from 'node:path';
import { parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { CliError, EXIT } from '../errors';

const loadCluster = () => require('../../cluster/cluster') as typeof import('../../cluster/cluster');

export const CLUSTER_SPEC = {
  name: 'cluster',
  usage: 'up|down|status [--dir DIR] [--separate-services] [--mtls] [--no-web-ui]',
  description: [
    "`up` builds the pinned Temporal server and its schema tool from their Go modules (once, into .tools/bin), starts PostgreSQL (installing the OS package with apt-get when missing and running as root), applies or upgrades the schemas, starts the server (all four services in one process; with --separate-services, which a new cluster keeps, one process per service — history, matching, frontend, worker — as production runs them), creates the namespace and tideline's search attributes, waits until the namespace is usable, and starts the Temporal Web UI (its server built the same way, once; without it when it cannot be built, or with --no-web-ui). It is idempotent: a second `up` starts only what is down.",
    '`down` stops exactly what `up` started (the Web UI, the server, then PostgreSQL); the data stays in DIR for the next `up`. `status` prints what runs (exit 3 when something is down).',
    'With --namespace NS, the first `up` creates NS instead of "default" (a cluster keeps its namespace).',
    "With --mtls, the first `up` issues a private server CA, client CA, server certificate (localhost, 127.0.0.1) and client certificate with `openssl` into DIR/tls (mode 0600), and the server requires a client certificate on its frontend and internode ports (a cluster keeps this choice). `up`'s own clients and `status` use the client certificate; the Web UI is read-only: it holds no certificate and reaches the frontend through a read-only gate (pids.uiGate, DIR/ui/gate.log) that forwards only reads, and its write actions are off; `clientEnv` in the output is the environment a worker or CLI needs (TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_KEY_PATH, TEMPORAL_TLS_SERVER_CA_CERT_PATH, TEMPORAL_TLS_SERVER_NAME).",
    'Everything binds to 127.0.0.1 on free ports chosen at the first `up` and kept in DIR/cluster.json (mode 0600, with the generated PostgreSQL password, which is never printed).',
    'The first stdout line is one JSON object: {dir, address, namespace, webUiUrl, running {postgres, server, ui}, postgres {host, port, user, databases, dataDir}, pids {postgres, server | services {history, matching, frontend, worker}, ui, uiGate}, logs, serverProcesses, mtls, clientEnv}; `status` adds frontendAnswers while the server runs (a client with clientEnv was answered; exit 3 when not). The Web UI shows payloads encrypted (the cluster has no codec server).',
  ],
  options: {
    dir: { type: 'string' },
    'no-web-ui': { type: 'boolean' },
    'separate-services': { type: 'boolean' },
    mtls: { type: 'boolean' },
  },
  optionHelp: [
    ['--dir DIR', 'the cluster directory (default cluster/ in the tools folder: .tools/ in a checkout)'],
    ['--separate-services', 'a new cluster runs each Temporal service in its own process'],
    ['--mtls', 'a new cluster requires client certificates (mutual TLS; needs the openssl command)'],
    ['--no-web-ui', '`up` starts no Web UI'],
  ],
  examples: [
    'tideline cluster up',
    'TEMPORAL_ADDRESS=$(tideline cluster status | jq -r .address) tideline worker',
    'tideline cluster up --mtls --dir ./secure',
    'eval "$(tideline cluster status --dir ./secure | jq -r \'.clientEnv | to_entries[] | "export \\(.key)=\\(.value | @sh)"\')" && tideline worker',
    'tideline cluster down',
  ],
  positionals: { min: 1, max: 1, names: 'up|down|status' },
} satisfies CommandSpec;

/** `value` as one POSIX shell word, so the printed `export` lines paste back (paths may hold spaces). */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

export const clusterCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(CLUSTER_SPEC, argv, ctx);
  const action = parsed.positionals[0];
  if (action !== 'up' && action !== 'down' && action !== 'status') {
    throw new CliError(
      'CLI_USAGE',
      `unknown cluster action ${JSON.stringify(action)}`,
      'use `tideline cluster up`, `down` or `status`',
    );
  }
  const cluster = loadCluster();
  const dir =
    parsed.values.dir === undefined ? cluster.defaultClusterDir() : path.resolve(ctx.cwd, parsed.values.dir);
  const print = (value: unknown): void => {
    ctx.stdout.write(`${JSON.stringify(value)}\n`);
  };
  if (action === 'up') {
    const info = await cluster.clusterUp({
      dir,
      env: ctx.env,
      log: (line) => ctx.stderr.write(`${line}\n`),
      webUi: parsed.values['no-web-ui'] !== true,
      ...(parsed.values['separate-services'] === true ? { serverProcesses: 'separate' as const } : {}),
      ...(parsed.values.mtls === true ? { mtls: true } : {}),
      ...(ctx.globals.namespace !== undefined ? { namespace: ctx.globals.namespace } : {}),
    });
    print(info);
    const ui = info.webUiUrl !== undefined ? `, Web UI ${info.webUiUrl}` : '';
    ctx.stderr.write(`tideline: cluster up: Temporal at ${info.address}, namespace ${info.namespace}${ui}\n`);
    if (info.mtls) {
      const exports = Object.entries(info.clientEnv).map(
        ([name, value]) => `  export ${name}=${shellWord(value)}`,
      );
      ctx.stderr.write(
        `tideline: the frontend requires a client certificate (mTLS); a worker or CLI needs:\n${exports.join('\n')}\n`,
      );
    }
    return EXIT.OK;
  }
  if (action === 'down') {
    print(await cluster.clusterDown(dir));
    return EXIT.OK;
  }
  const info = await cluster.clusterStatusChecked(dir);
  print(info);
  const up = info.running.postgres && info.running.server && info.running.ui !== false;
  return up && info.frontendAnswers !== false ? EXIT.OK : EXIT.UNAVAILABLE;
};
