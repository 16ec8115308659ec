// The approver's private key on this machine and what the CLI signs with it: a decision
// (`approve`/`reject`) and a run's start (`run`). The key lives in ~/.tideline/approval-keys/NAME.pem
// (directory 0700, file 0600), or the file `--key` names; it never leaves this process: only the
// signature travels. Signed payloads: contract/approval-messages.ts.
import { createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { keyId, privateKeyFromPem, signPayload } from '../activities/approval-keys';
import {
  approvalPayload,
  holdActionPayload,
  scheduleStartPayload,
  startPayload,
  type ApprovalPlan,
  type ApprovalSignature,
  type HoldActionName,
  type HoldSignature,
  type SignedStart,
} from '../contract/approval-messages';
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

function nonce(): string {
  return randomBytes(16).toString('base64url');
}

export function signDecision(
  key: KeyObject,
  fields: {
    workflowId: string;
    runId: string;
    stepKey: string;
    approved: boolean;
    by: string;
    comment?: string;
    /** The plan the step shows (runs the worker admitted): the signature covers it. */
    plan?: ApprovalPlan;
  },
  now: number = Date.now(),
): ApprovalSignature {
  const base = { keyId: keyId(createPublicKey(key)), nonce: nonce(), signedAt: now };
  const payload = approvalPayload({
    ...fields,
    comment: fields.comment,
    signedAt: base.signedAt,
    nonce: base.nonce,
  });
  return {
    ...base,
    workflowId: fields.workflowId,
    runId: fields.runId,
    stepKey: fields.stepKey,
    value: signPayload(payload, key),
  };
}

/** The run's starter: signed when a key is there for `by`, else only claimed. */
export function signStart(key: KeyObject | undefined, workflowId: string, by: string): SignedStart {
  if (key === undefined) return { by };
  const base = { keyId: keyId(createPublicKey(key)), nonce: nonce(), signedAt: Date.now(), workflowId };
  return { by, signature: { ...base, value: signPayload(startPayload({ ...base, by }), key) } };
}

/**
 * A schedule's starter: its creator signs the schedule id, the definition (by hash) and the inputs,
 * so every run it starts is verified as theirs, and nothing else is.
 */
export function signScheduleStart(
  key: KeyObject | undefined,
  fields: { scheduleId: string; by: string; definitionHash: string; inputs: unknown },
): SignedStart {
  if (key === undefined) return { by: fields.by };
  const base = { keyId: keyId(createPublicKey(key)), nonce: nonce(), signedAt: Date.now() };
  const value = signPayload(scheduleStartPayload({ ...fields, ...base }), key);
  return { by: fields.by, signature: { ...base, workflowId: fields.scheduleId, schedule: true, value } };
}

/** An operator's hold action (retry, skip, rollback), signed over the run and what it changes. */
export function signHoldAction(
  key: KeyObject,
  fields: {
    workflowId: string;
    runId: string;
    action: HoldActionName;
    step?: string;
    by: string;
    reason?: string;
    changes: unknown;
  },
  now: number = Date.now(),
): HoldSignature {
  const base = { keyId: keyId(createPublicKey(key)), nonce: nonce(), signedAt: now };
  const payload = holdActionPayload({
    ...fields,
    step: fields.step,
    reason: fields.reason,
    signedAt: base.signedAt,
    nonce: base.nonce,
  });
  return { ...base, value: signPayload(payload, key) };
}
