// The approver's private key on this machine, which the CLI signs decisions, starts and hold actions
// with (activities/approval-signatures.ts). The key lives in ~/.tideline/approval-keys/NAME.pem
// (directory 0700, file 0600), or the file `--key` names; it never leaves this process: only the
// signature travels.
import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { privateKeyFromPem } from '../activities/approval-keys';
import { warnIfOpenToOthers } from '../worker/file-permissions';
import { userTidelineDir } from '../worker/key-store';
import type { CliContext } from './context';
import { CliError } from './errors';

export function approvalKeyDir(env: NodeJS.ProcessEnv): string {
  return path.join(userTidelineDir(env.HOME || undefined), 'approval-keys');
}

export function approvalKeyFile(env: NodeJS.ProcessEnv, name: string): string {
  return path.join(approvalKeyDir(env), `${name}.pem`);
}

/**
 * The private key of `name` (or the file given), or undefined when there is none: the decision
 * then goes unsigned, which steps without approvers accept. A named file that cannot be read is
 * an error; the message names the file, never its content.
 */
export function loadApprovalKey(ctx: CliContext, name: string, file?: string): KeyObject | undefined {
  const chosen = file ?? approvalKeyFile(ctx.env, name);
  let pem: string;
  try {
    pem = readFileSync(chosen, 'utf8');
  } catch (error) {
    if (file === undefined && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CliError('APPROVAL_KEY_INVALID', `cannot read approval key ${chosen} (${reason})`);
  }
  warnIfOpenToOthers(chosen, 'approval key', (line) => ctx.stderr.write(`${line}\n`));
  try {
    return privateKeyFromPem(pem);
  } catch {
    throw new CliError(
      'APPROVAL_KEY_INVALID',
      `${chosen} is not an Ed25519 private key`,
      'create one with `tideline keys create NAME`',
    );
  }
}
