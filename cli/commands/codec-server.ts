// `tideline codec-server`: Temporal's remote codec protocol (POST /codec/decode, /codec/encode) with
// the worker's key ring, so a Web UI or `temporal --codec-endpoint` shows payloads decrypted. It
// runs until Ctrl-C / SIGTERM. The bearer token comes from TIDELINE_CODEC_TOKEN, or is generated
// and printed once in the start-up line; nothing else it prints carries a token or a payload.
/* eslint-disable @typescript-eslint/no-require-imports -- the key store and server load only when used */
import { parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { codecToken } from '../../stack/codec-token';
import { waitForStopSignal } from '../stop-signal';
import { CliError, EXIT } from '../errors';
import { resolveSettings } from '../settings';
import { SHARED_DEFAULTS } from '../../worker/shared-settings';

export const CODEC_SERVER_SPEC = {
  name: 'codec-server',
  usage: '[--listen HOST:PORT] [--cors-origin URL]… [--namespace NS]…',
  description: [
    'Serves POST /codec/decode and POST /codec/encode (body {"payloads":[{"metadata":{…},"data":"<base64>"}]}) with the same keys as the worker (TIDELINE_ENCRYPTION_KEYS, TIDELINE_KEY_FILE or ~/.tideline/keys.json). Give the UI the endpoint http://HOST:PORT/codec.',
    'Every request needs `Authorization: Bearer <token>` or the cookie a browser gets by signing in at <endpoint>/login (for a Web UI with TEMPORAL_CODEC_INCLUDE_CREDENTIALS=true): the token is TIDELINE_CODEC_TOKEN (at least 16 characters), or one generated now and printed once. Requests must name a served namespace in X-Namespace (default: the namespace of your settings; repeat --namespace for more). Only the --cors-origin URLs (the Web UI, e.g. http://127.0.0.1:8080) get CORS answers.',
    'With --json the first stdout line is {endpoint, namespaces, corsOrigins, tokenSource, token?} (token only when generated).',
  ],
  options: {
    listen: { type: 'string' },
    'cors-origin': { type: 'string', multiple: true },
    namespace: { type: 'string', multiple: true },
    'max-body-bytes': { type: 'string' },
  },
  optionHelp: [
    ['--listen HOST:PORT', 'where to listen (default 127.0.0.1:8081; port 0 = any free port)'],
    ['--cors-origin URL', 'a Web UI origin allowed to call it from the browser (repeatable)'],
    ['--namespace NS', 'a namespace it serves (repeatable; default: --namespace / TEMPORAL_NAMESPACE)'],
    ['--max-body-bytes N', 'largest request body (default 4194304); larger ones get 413'],
  ],
  examples: [
    'tideline codec-server --cors-origin http://127.0.0.1:8080',
    'TIDELINE_CODEC_TOKEN=… tideline codec-server --listen 0.0.0.0:8081 --cors-origin https://temporal.example.com --namespace prod',
  ],
  positionals: { min: 0, max: 0, names: '' },
} satisfies CommandSpec;

export function parseListen(text: string | undefined): { host: string; port: number } {
  if (text === undefined) return { host: '127.0.0.1', port: 8081 };
  const match = /^(\[[0-9a-fA-F:]+\]|[^:\s]+):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (match?.[1] === undefined || port > 65535) {
    throw new CliError('CLI_USAGE', '--listen must be HOST:PORT', `got ${JSON.stringify(text)}`);
  }
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}

export function parseOrigin(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(
      'CLI_USAGE',
      '--cors-origin must be a URL like https://temporal.example.com',
      `got ${JSON.stringify(text)}`,
    );
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.pathname.length > 1 ||
    url.search !== ''
  ) {
    throw new CliError(
      'CLI_USAGE',
      '--cors-origin must be an origin (scheme://host[:port])',
      `got ${JSON.stringify(text)}`,
    );
  }
  return url.origin;
}

/** Bad keys or a taken port are usage errors (exit 2); anything else is an internal failure. */
function startFailure(error: unknown): CliError {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (
    (typeof code === 'string' && code.startsWith('TIDELINE_KEY')) ||
    code === 'TIDELINE_ENCRYPTION_KEY_INVALID'
  ) {
    return new CliError('CLI_USAGE', message, 'check TIDELINE_ENCRYPTION_KEYS / TIDELINE_KEY_FILE');
  }
  if (code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL' || code === 'EACCES') {
    return new CliError('CLI_USAGE', `cannot listen there: ${message}`, 'choose another --listen address');
  }
  return new CliError('CLI_INTERNAL', `the codec server could not start: ${message}`);
}

export const codecServerCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(CODEC_SERVER_SPEC, argv, ctx);
  const { values } = parsed;
  const { host, port } = parseListen(values.listen);
  const origins = (values['cors-origin'] ?? []).map(parseOrigin);
  const namespaces = values.namespace ?? [resolveSettings(ctx).namespace ?? SHARED_DEFAULTS.namespace];
  const maxBody = values['max-body-bytes'] === undefined ? undefined : Number(values['max-body-bytes']);
  if (maxBody !== undefined && (!Number.isInteger(maxBody) || maxBody < 1024)) {
    throw new CliError('CLI_USAGE', '--max-body-bytes must be a whole number of at least 1024');
  }
  const { token, source } = codecToken(ctx.env.TIDELINE_CODEC_TOKEN);
  const generated = source === 'generated';

  const { loadEncryptionKeys } = require('../../worker/key-store') as typeof import('../../worker/key-store');
  const { startCodecServer } =
    require('../../worker/codec-server') as typeof import('../../worker/codec-server');
  const stop = waitForStopSignal(ctx);
  try {
    const server = await Promise.resolve()
      .then(() => {
        const keys = loadEncryptionKeys({ env: ctx.env, notice: (line) => ctx.stderr.write(`${line}\n`) });
        return startCodecServer({
          keyRing: keys.keyRing,
          token,
          allowedOrigins: origins,
          namespaces,
          host,
          port,
          ...(maxBody !== undefined ? { maxBodyBytes: maxBody } : {}),
        });
      })
      .catch((error: unknown) => {
        throw startFailure(error);
      });
    const info = {
      endpoint: server.endpoint,
      namespaces,
      corsOrigins: origins,
      tokenSource: generated ? 'generated' : 'env',
      ...(generated ? { token } : {}),
    };
    if (ctx.globals.json) ctx.stdout.write(`${JSON.stringify(info)}\n`);
    else {
      ctx.stdout.write(
        `tideline codec-server: ${server.endpoint} for namespace${namespaces.length > 1 ? 's' : ''} ${namespaces.join(', ')}; ` +
          `CORS for ${origins.length > 0 ? origins.join(', ') : 'no origin'}; ` +
          (generated ? `token (shown once): ${token}\n` : 'token from TIDELINE_CODEC_TOKEN\n'),
      );
    }
    const signal = await stop.received;
    ctx.stderr.write(`tideline codec-server: ${signal} received; stopping\n`);
    await server.close();
    return EXIT.OK;
  } finally {
    stop.dispose();
  }
};
