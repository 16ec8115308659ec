// `tideline setup`: registers tideline's search attributes (contract/search-attributes.ts) on the
// namespace of the CLI's settings, like `temporal operator search-attribute create`, but
// idempotent: what is there already is left alone, so it is safe to run at every deployment.
// `tideline dev`, the test servers and docker-compose register them themselves; this is for any
// other self-hosted Temporal. Temporal Cloud refuses the operator call: add them in the
// namespace's settings (Cloud UI) or with `tcld namespace search-attributes add`.
import { parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { CliError, EXIT } from '../errors';
import { withTemporal } from '../temporal';
import { TIDELINE_SEARCH_ATTRIBUTES } from '../../contract/search-attributes';

export const SETUP_SPEC = {
  name: 'setup',
  usage: '[--check]',
  description: [
    `Registers ${TIDELINE_SEARCH_ATTRIBUTES.map((a) => `${a.name} (${a.type})`).join(', ')}`,
    'on the namespace (--namespace, TEMPORAL_NAMESPACE, default `default`). Runs keep them',
    'current, and workers refuse a namespace without them. Attributes already registered are left',
    'alone, so running it again changes nothing. --check only reports what is missing (exit 1 if',
    'anything is). Temporal Cloud: add them in the namespace settings or with',
    '`tcld namespace search-attributes add`.',
  ],
  options: { check: { type: 'boolean' } },
  optionHelp: [['--check', 'report what is missing without registering it (exit 1 when something is)']],
  examples: [
    'tideline setup',
    'tideline setup --address temporal.internal:7233 --namespace prod',
    'tideline setup --check --json',
  ],
  positionals: { min: 0, max: 0, names: '' },
} satisfies CommandSpec;

/** gRPC PERMISSION_DENIED and UNIMPLEMENTED: a managed service (Temporal Cloud) or a locked-down one. */
const REFUSED = new Set([7, 12]);

export const setupCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(SETUP_SPEC, argv, ctx);
  const check = parsed.values.check === true;
  const { grpcCode, missingSearchAttributes, registerSearchAttributes, searchAttributeCreateCommand } =
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily like the SDK
    require('../../worker/namespace-check') as typeof import('../../worker/namespace-check');
  return withTemporal(ctx, async (session) => {
    const namespace = session.target.namespace;
    const connection = session.client.connection;
    let added: string[] = [];
    let missing: string[] = [];
    try {
      if (check) missing = (await missingSearchAttributes(connection, namespace)).map((p) => p.name);
      else added = (await registerSearchAttributes(connection, namespace)).added;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === 'TIDELINE_SEARCH_ATTRIBUTES_MISSING') {
        throw new CliError('SEARCH_ATTRIBUTES_REFUSED', (error as Error).message);
      }
      if (REFUSED.has(grpcCode(error) ?? -1)) {
        throw new CliError(
          'SEARCH_ATTRIBUTES_REFUSED',
          `Temporal at ${session.target.address} does not let this connection register search attributes (${(error as Error).message})`,
          `on Temporal Cloud add them in the namespace's settings or with \`tcld namespace search-attributes add\`; elsewhere ask an operator to run \`${searchAttributeCreateCommand(namespace)}\``,
        );
      }
      throw error;
    }
    const names = TIDELINE_SEARCH_ATTRIBUTES.map((a) => a.name);
    if (ctx.globals.json) {
      const present = names.filter((name) => !added.includes(name) && !missing.includes(name));
      ctx.stdout.write(`${JSON.stringify({ namespace, added, missing, present })}\n`);
    } else if (check) {
      ctx.stdout.write(
        missing.length === 0
          ? `namespace "${namespace}" has tideline's search attributes (${names.join(', ')})\n`
          : `namespace "${namespace}" lacks ${missing.join(', ')}; register them with \`tideline setup\`\n`,
      );
    } else {
      ctx.stdout.write(
        added.length === 0
          ? `namespace "${namespace}" already has tideline's search attributes (${names.join(', ')}); nothing changed\n`
          : `registered ${added.join(', ')} on namespace "${namespace}"\n`,
      );
    }
    return check && missing.length > 0 ? EXIT.FAILED : EXIT.OK;
  });
};
