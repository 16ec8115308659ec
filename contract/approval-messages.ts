// Signed approvals: what `tideline approve/reject` (and `tideline run`, for the starter) sign, what
// the `approval.verify` activity answers, and the audit entry a run keeps for every decision.
// Types and plain functions only: the workflow sandbox imports this module.
import type { RunbookDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';
import { canonicalJson } from './canonical-json';
import type { HoldActor, HoldJudgeRequest, HoldPolicyRefusalCode } from './hold-judgement';
import type { PolicyRecord } from './policy-messages';

/** What a plan shows in place of a secret value (approval plans, and `tideline plan`'s). */
export const MASKED = '(secret)';

/**
 * How an agent's identity starts: the starter an MCP client's runs carry is `mcp:<client>` (or a
 * name the server's configuration gives, which must start so too).
 */
export const AGENT_NAME_PREFIX = 'mcp:';

/**
 * The form of an agent's name that can hold a key (`approvals.keys`, `tideline keys create`,
 * `tideline mcp --agent-name`): `mcp:` and letters, digits, . _ @ - (at most 63).
 */
export const AGENT_KEY_NAME = /^mcp:[A-Za-z0-9][A-Za-z0-9._@-]{0,62}$/;

/** Whether `name` names an agent; case and surrounding blanks do not hide one. */
export function isAgentName(name: string | null | undefined): boolean {
  return (name ?? '').trim().toLowerCase().startsWith(AGENT_NAME_PREFIX);
}

/** Why an agent's decision is refused, worded once for the worker and the activity. */
export function agentApprovalRefusal(name: string): string {
  return `${name.trim()} is an agent identity; agents never approve: a person approves with \`tideline approve\``;
}

/** The activity type that verifies a decision (activities/approval-verify.ts). */
export const VERIFY_APPROVAL_ACTIVITY = 'approval.verify';

/** Why a decision was not counted; stable codes (clients match on them, never on messages). */
export const APPROVAL_REFUSAL_CODES = [
  /** The step names approvers but the decision carries no signature. */
  'APPROVAL_UNSIGNED',
  /** The decision names no approver (`by`). */
  'APPROVAL_NO_NAME',
  /** No public key is registered in the worker configuration for the name. */
  'APPROVAL_UNKNOWN_KEY',
  /** The signature does not verify with the name's registered key(s). */
  'APPROVAL_BAD_SIGNATURE',
  /** The signature was made for another run or step. */
  'APPROVAL_WRONG_RUN',
  /** Signed too long ago (or in the future). */
  'APPROVAL_STALE',
  /** The name is not listed in the step's approvers (directly or through a group). */
  'APPROVAL_NOT_APPROVER',
  /** The signature's nonce was seen before in this run. */
  'APPROVAL_REPLAYED',
  /** This person's approval was already counted for the step. */
  'APPROVAL_DUPLICATE',
  /** The run's starter approving a step with `allowSelfApproval: false`. */
  'APPROVAL_SELF',
  /** The step was decided (or timed out) while the decision was being verified. */
  'APPROVAL_TOO_LATE',
  /** Signed for another plan than the one the step guards now (inputs or targets changed). */
  'APPROVAL_PLAN_CHANGED',
  /** The decision names an agent (`mcp:…`): people approve, agents never do. */
  'APPROVAL_AGENT',
] as const;
export type ApprovalRefusalCode = (typeof APPROVAL_REFUSAL_CODES)[number];

/** How old a signature may be when the worker checks it; and how far in the future (clock skew). */
export const APPROVAL_MAX_AGE_MS = 10 * 60_000;
export const APPROVAL_MAX_SKEW_MS = 60_000;

/** An Ed25519 signature over `approvalPayload` (or `startPayload`), with what it claims. */
export interface ApprovalSignature {
  /** The signer's key id: the first 16 hex digits of SHA-256 over the raw public key. */
  keyId: string;
  /** Random, base64url; a nonce is counted once per run. */
  nonce: string;
  /** When it was signed (epoch ms, the signer's clock). */
  signedAt: number;
  /** The run and step it was signed for (checked against the run's own before verifying). */
  workflowId: string;
  runId: string;
  stepKey: string;
  /** base64 of the 64-byte signature. */
  value: string;
}

/** The signed start of a run: who started it (`tideline run` with a key, or a schedule's creator). */
export interface SignedStart {
  by: string;
  /**
   * A run's own start: signed for its workflow id, task queue, definition (by hash) and inputs as
   * given, with a nonce, good until `expiresAt` and for one run only. A schedule's (`schedule`
   * true): signed for the schedule id (`workflowId`) and the moment it was created
   * (`scheduleCreatedAt`), its task queue, the definition and the inputs, good for the runs that
   * schedule starts while it exists (their ids are `<schedule id>-<time>`).
   */
  signature?: Omit<ApprovalSignature, 'runId' | 'stepKey'> & {
    schedule?: true;
    /** The task queue the start was signed for. */
    taskQueue?: string;
    /** A run's own start: the signature is good for a start made until then (epoch ms). */
    expiresAt?: number;
    /** A schedule's: when the schedule it was signed for was created (epoch ms, as Temporal says). */
    scheduleCreatedAt?: number;
  };
}

/** What a start decides, which its signature covers. */
export interface StartFields {
  workflowId: string;
  taskQueue: string;
  by: string;
  definition: RunbookDefinition;
  /** The inputs as the start gives them (`RunbookWorkflowInput.inputs`). */
  inputs: unknown;
}

/** How long a start signature stays good for its start (the CLI signs just before starting). */
export const START_SIGNATURE_TTL_MS = APPROVAL_MAX_AGE_MS;

/** A change an approval guards: a later changing step and its `with` as resolved when asked. */
export interface PlannedChange {
  stepKey: string;
  action: string;
  /** Resolved values; a field that needs a later step's output keeps its `${{ … }}` text. */
  with: Record<string, JsonValue>;
}

/** What an approver is shown and signs: the definition's hash and the changes the step guards. */
export interface ApprovalPlan {
  definitionHash: string;
  changes: PlannedChange[];
}

/**
 * The bytes an approver signs: every field that gives the decision its meaning, and (runs whose
 * approvals show a plan) the plan itself, so a signature holds only for what the approver saw.
 */
export function approvalPayload(fields: {
  workflowId: string;
  runId: string;
  stepKey: string;
  approved: boolean;
  by: string;
  comment: string | undefined;
  signedAt: number;
  nonce: string;
  plan?: ApprovalPlan;
}): string {
  const version = fields.plan === undefined ? [] : [canonicalJson(fields.plan)];
  return JSON.stringify([
    fields.plan === undefined ? 'tideline-approval/1' : 'tideline-approval/2',
    fields.workflowId,
    fields.runId,
    fields.stepKey,
    fields.approved ? 'approve' : 'reject',
    fields.by,
    fields.comment ?? '',
    fields.signedAt,
    fields.nonce,
    ...version,
  ]);
}

/**
 * The bytes a starter signs: everything the start decides (its workflow id and task queue, the
 * definition by hash, the inputs as given), a nonce and an expiry, so a signature starts one thing
 * once (the worker claims the nonce; activities/admission.ts).
 */
export function startPayload(fields: {
  workflowId: string;
  taskQueue: string;
  by: string;
  definitionHash: string;
  inputs: unknown;
  signedAt: number;
  expiresAt: number;
  nonce: string;
}): string {
  return JSON.stringify([
    'tideline-start/2',
    fields.workflowId,
    fields.taskQueue,
    fields.by,
    fields.definitionHash,
    canonicalJson(fields.inputs),
    fields.signedAt,
    fields.expiresAt,
    fields.nonce,
  ]);
}

/**
 * The bytes an earlier release's CLI signed for a start (workflow id, name, time, nonce): still
 * verified for runs the worker did not admit (they started before admission), never for new ones.
 */
export function legacyStartPayload(fields: {
  workflowId: string;
  by: string;
  signedAt: number;
  nonce: string;
}): string {
  return JSON.stringify(['tideline-start/1', fields.workflowId, fields.by, fields.signedAt, fields.nonce]);
}

/**
 * The bytes a schedule's creator signs: the schedule (its id and the moment it was created, so a
 * schedule made later under the same id is another one), its task queue, the definition (its
 * hash) and the inputs as given, so the signature vouches for exactly the runs that schedule starts.
 */
export function scheduleStartPayload(fields: {
  scheduleId: string;
  scheduleCreatedAt: number;
  taskQueue: string;
  by: string;
  definitionHash: string;
  inputs: unknown;
  signedAt: number;
  nonce: string;
}): string {
  return JSON.stringify([
    'tideline-schedule-start/2',
    fields.scheduleId,
    fields.scheduleCreatedAt,
    fields.taskQueue,
    fields.by,
    fields.definitionHash,
    canonicalJson(fields.inputs),
    fields.signedAt,
    fields.nonce,
  ]);
}

export interface VerifyApprovalInput {
  workflowId: string;
  runId: string;
  stepKey: string;
  /** The step's approvers as written (names and `group:NAME`). */
  approvers: string[];
  approved: boolean;
  by?: string;
  comment?: string;
  signature?: ApprovalSignature;
  /** The run's claimed starter, verified once (at the first decision) and then remembered. */
  starter?: SignedStart;
  /** When the run started (epoch ms), sent with `starter`: a start signature must be fresh then. */
  runStartedAt?: number;
  /** The plan the step guards now (runs admitted by the worker): the signature must cover it. */
  plan?: ApprovalPlan;
}

export interface StarterVerdict {
  by: string;
  /** Its start signature verified with a registered key. */
  verified: boolean;
  /** Why not, when not verified. */
  reason?: string;
}

export type VerifyApprovalResult = (
  | {
      accepted: true;
      by: string;
      keyId: string;
      /** The approvers entry that lets this person decide: the name or `group:NAME`. */
      via: string;
    }
  | { accepted: false; code: ApprovalRefusalCode; reason: string; by?: string; keyId?: string }
) & { starter?: StarterVerdict };

/** One decision sent to an approval step that names approvers, counted or not. */
export interface ApprovalAuditEntry {
  stepKey: string;
  decision: 'approve' | 'reject';
  by: string | null;
  keyId: string | null;
  comment: string | null;
  /** When the workflow recorded it (workflow time, epoch ms). */
  at: number;
  signedAt: number | null;
  accepted: boolean;
  /** Set when refused. */
  code?: ApprovalRefusalCode;
  reason?: string;
  /** Accepted: the approvers entry that allowed it. */
  via?: string;
}

/** An operator's action on a held run (`retry`, `skip`, `rollback`), signed like a decision. */
export const HOLD_ACTIONS = ['retry', 'skip', 'rollback'] as const;
export type HoldActionName = (typeof HOLD_ACTIONS)[number];

/** What a hold action changes, as signed: a retry's inputs and `with`, a skip's output. */
export function holdActionChanges(
  action: HoldActionName,
  request: { inputs?: unknown; with?: unknown; output?: unknown },
): unknown {
  if (action === 'retry') return { inputs: request.inputs ?? {}, with: request.with ?? {} };
  if (action === 'skip') return request.output ?? null;
  return null;
}

/** The bytes an operator signs for a hold action: the run, the action and everything it changes. */
export function holdActionPayload(fields: {
  workflowId: string;
  runId: string;
  action: HoldActionName;
  step: string | undefined;
  by: string;
  reason: string | undefined;
  /** retry: inputs and `with` changes; skip: the stand-in output. */
  changes: unknown;
  signedAt: number;
  nonce: string;
}): string {
  return JSON.stringify([
    'tideline-hold/1',
    fields.workflowId,
    fields.runId,
    fields.action,
    fields.step ?? '',
    fields.by,
    fields.reason ?? '',
    canonicalJson(fields.changes ?? null),
    fields.signedAt,
    fields.nonce,
  ]);
}

/** An Ed25519 signature over `holdActionPayload`. */
export interface HoldSignature {
  keyId: string;
  nonce: string;
  signedAt: number;
  value: string;
}

/** Why a hold action was refused; stable codes. */
export const HOLD_REFUSAL_CODES = [
  'HOLD_UNSIGNED',
  'HOLD_UNKNOWN_KEY',
  'HOLD_BAD_SIGNATURE',
  'HOLD_STALE',
  'HOLD_REPLAYED',
] as const;
/** A refusal of the signature (above) or of the worker's policies for the person acting. */
export type HoldRefusalCode = (typeof HOLD_REFUSAL_CODES)[number] | HoldPolicyRefusalCode;

export const VERIFY_HOLD_ACTION_ACTIVITY = 'hold.verify';

export interface VerifyHoldActionInput {
  workflowId: string;
  runId: string;
  action: HoldActionName;
  step?: string;
  by?: string;
  reason?: string;
  changes: unknown;
  signature?: HoldSignature;
  /** The worker requires a signature (catalogue mode); otherwise an unsigned action is a claim. */
  required: boolean;
  /** Runs that judge hold actions: what the policies are evaluated over, for the person acting. */
  judge?: HoldJudgeRequest;
}

/** With `judge`: an accepted action names its actor; a policy refusal keeps its records. */
export type VerifyHoldActionResult =
  | ({ accepted: true; by: string | null; verified: boolean; keyId?: string } & Partial<HoldActor>)
  | { accepted: false; code: HoldRefusalCode; reason: string; policies?: PolicyRecord[] };
