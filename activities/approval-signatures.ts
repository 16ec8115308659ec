// What a key holder signs: a decision (`approve`/`reject`), a run's start, a schedule's starts and
// a hold action, each over the payload contract/approval-messages.ts defines. Pure given the key
// and the time; the worker verifies the same payloads (approval-verify.ts).
import { createHash, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../contract/canonical-json';
import { keyId, signPayload } from './approval-keys';
import { definitionHash } from './definition-hash';
import type { RunbookDefinition } from '../dsl/definition';
import {
  approvalPayload,
  holdActionPayload,
  scheduleStartPayload,
  START_SIGNATURE_TTL_MS,
  startPayload,
  type ApprovalPlan,
  type ApprovalSignature,
  type HoldActionName,
  type HoldSignature,
  type SignedStart,
  type StartFields,
} from '../contract/approval-messages';

/** How many hex digits of the plan's SHA-256 its fingerprint shows: 64 bits, too many to match by trying. */
export const PLAN_FINGERPRINT_DIGITS = 16;

/**
 * The fingerprint of an approval's plan: the start of SHA-256 over its canonical JSON. The person
 * reads the plan with it (`tideline approve ID`) and approves that fingerprint (`--plan`); the CLI
 * signs only when the plan the step guards now has it, and the signature covers the plan itself.
 */
export function planFingerprint(plan: ApprovalPlan): string {
  return createHash('sha256').update(canonicalJson(plan)).digest('hex').slice(0, PLAN_FINGERPRINT_DIGITS);
}

/** What every signature carries besides its value: which key, a fresh nonce, and when. */
function signatureBase(key: KeyObject, signedAt: number) {
  return { keyId: keyId(createPublicKey(key)), nonce: randomBytes(16).toString('base64url'), signedAt };
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
  const base = signatureBase(key, now);
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
export function signStart(
  key: KeyObject | undefined,
  fields: StartFields,
  now: number = Date.now(),
): SignedStart {
  if (key === undefined) return { by: fields.by };
  const base = signatureBase(key, now);
  const expiresAt = now + START_SIGNATURE_TTL_MS;
  const value = signPayload(
    startPayload({
      workflowId: fields.workflowId,
      taskQueue: fields.taskQueue,
      by: fields.by,
      definitionHash: definitionHash(fields.definition),
      inputs: fields.inputs,
      signedAt: base.signedAt,
      expiresAt,
      nonce: base.nonce,
    }),
    key,
  );
  return {
    by: fields.by,
    signature: { ...base, workflowId: fields.workflowId, taskQueue: fields.taskQueue, expiresAt, value },
  };
}

/**
 * A schedule's starter: its creator signs the schedule (its id and when Temporal says it was
 * created), the task queue, the definition (by hash) and the inputs, so every run that schedule
 * starts is verified as theirs, and nothing else is.
 */
export function signScheduleStart(
  key: KeyObject | undefined,
  fields: {
    scheduleId: string;
    scheduleCreatedAt: number;
    taskQueue: string;
    by: string;
    definition: RunbookDefinition;
    inputs: unknown;
  },
): SignedStart {
  if (key === undefined) return { by: fields.by };
  const base = signatureBase(key, Date.now());
  const value = signPayload(
    scheduleStartPayload({
      scheduleId: fields.scheduleId,
      scheduleCreatedAt: fields.scheduleCreatedAt,
      taskQueue: fields.taskQueue,
      by: fields.by,
      definitionHash: definitionHash(fields.definition),
      inputs: fields.inputs,
      signedAt: base.signedAt,
      nonce: base.nonce,
    }),
    key,
  );
  return {
    by: fields.by,
    signature: {
      ...base,
      workflowId: fields.scheduleId,
      schedule: true,
      scheduleCreatedAt: fields.scheduleCreatedAt,
      taskQueue: fields.taskQueue,
      value,
    },
  };
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
  const base = signatureBase(key, now);
  const payload = holdActionPayload({
    ...fields,
    step: fields.step,
    reason: fields.reason,
    signedAt: base.signedAt,
    nonce: base.nonce,
  });
  return { ...base, value: signPayload(payload, key) };
}
