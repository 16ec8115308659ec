// `tideline keys create NAME`: an Ed25519 key pair for signing approvals. The private key goes to
// ~/.tideline/approval-keys/NAME.pem (directory 0700, file 0600, never overwritten); the public key
// is printed as the line to register in the worker configuration's `approvals.keys`.
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { keyId, publicKeyText } from '../../activities/approval-keys';
import { AGENT_KEY_NAME } from '../../contract/approval-messages';
import { parseCommand, type CommandSpec } from '../args';
import { approvalKeyDir, approvalKeyFile } from '../approval-signing';
import type { Command } from '../context';
import { CliError, EXIT } from '../errors';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

export const KEYS_SPEC = {
  name: 'keys',
  usage: 'create NAME',
  description: [
    'Writes the private key to ~/.tideline/approval-keys/NAME.pem (mode 0600; an existing key is',
    'never replaced) and prints the public key: register it in the worker configuration under',
    '`approvals.keys`. `tideline approve/reject/run --by NAME` then sign with it.',
  ],
  options: {},
  optionHelp: [],
  examples: ['tideline keys create alice', 'tideline keys create mcp:claude-code'],
  positionals: { min: 2, max: 2, names: 'create and the approver NAME' },
} satisfies CommandSpec;

export const keysCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(KEYS_SPEC, argv, ctx);
  const [action, name] = parsed.positionals;
  if (action !== 'create')
    throw new CliError(
      'CLI_USAGE',
      `unknown keys action "${action ?? ''}"`,
      'use: tideline keys create NAME',
    );
  // A person's name, or an agent's (`mcp:<client>`, the key `tideline mcp` signs starts with).
  if (name === undefined || !(NAME.test(name) || AGENT_KEY_NAME.test(name)))
    throw new CliError(
      'CLI_USAGE',
      `"${name ?? ''}" is not an approver name`,
      "letters, digits, . _ @ -, e.g. alice; an agent's: mcp: and the same, e.g. mcp:claude-code",
    );
  const file = approvalKeyFile(ctx.env, name);
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  mkdirSync(approvalKeyDir(ctx.env), { recursive: true, mode: 0o700 });
  try {
    // `wx`: fails when the file exists, so a key in use is never replaced.
    writeFileSync(file, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new CliError(
        'FILE_EXISTS',
        `${file} already exists`,
        'remove it first to make a new key (and register the new public key)',
      );
    throw error;
  }
  const line = `${name}: '${publicKeyText(publicKey)}'`;
  if (ctx.globals.json) {
    ctx.stdout.write(
      `${JSON.stringify({ name, keyId: keyId(publicKey), publicKey: publicKeyText(publicKey), file })}\n`,
    );
    return EXIT.OK;
  }
  ctx.stdout.write(
    `wrote the private key of ${name} to ${file} (0600; keep it private)\n` +
      `key id ${keyId(publicKey)}; register the public key under approvals.keys in the worker configuration:\n` +
      `${line}\n`,
  );
  return EXIT.OK;
};
