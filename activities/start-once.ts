// A signature starts one thing once. A run's own start signature is claimed for the run that first
// shows it, in a ledger every worker of the namespace shares (worker/start-ledger.ts keeps it in
// Temporal); another run showing it is refused, even after the first one closed. A schedule's
// signature starts only the runs of that schedule, as it was when signed: the schedule must exist
// now, be the one created at the signed moment (not another made later under the same id), and
// still carry this signature.
import type { AdmitRunInput } from '../contract/admission-messages';
import { APPROVAL_MAX_SKEW_MS, type SignedStart } from '../contract/approval-messages';

/** A schedule as Temporal holds it now. */
export interface LiveSchedule {
  /** When it was created (epoch ms). */
  createdAt: number;
  /** The starter its action carries. */
  startedBy: SignedStart | undefined;
}

export interface StartLedger {
  /**
   * Claims start signature `key` for run `runId`, kept at least until `holdUntil` (epoch ms):
   * `claimed` when this run holds it (a retried claim by the same run included), `taken` when
   * another run does.
   */
  claim(claim: { key: string; runId: string; holdUntil: number }): Promise<'claimed' | 'taken'>;
  /** The schedule with this id, or undefined when none exists. */
  schedule(scheduleId: string): Promise<LiveSchedule | undefined>;
}

/** The ledger key of a signature: its key id and nonce (both in the signed bytes). */
export function signatureKey(signature: NonNullable<SignedStart['signature']>): string {
  return `${signature.keyId}-${signature.nonce}`;
}

/**
 * Why the verified signed start of this run is refused, or undefined when it may start it. Asked
 * only for a start whose signature verified (activities/approval-verify.ts verifyStarter).
 */
export async function startReplayed(
  ledger: StartLedger | undefined,
  input: Pick<AdmitRunInput, 'runId' | 'startedBy'>,
): Promise<string | undefined> {
  const signature = input.startedBy?.signature;
  if (signature === undefined) return undefined;
  if (ledger === undefined)
    return 'this worker keeps no ledger of start signatures, so it cannot tell a replayed one';
  if (signature.schedule === true) {
    const schedule = await ledger.schedule(signature.workflowId);
    if (schedule === undefined)
      return `schedule ${signature.workflowId}, which the signature was made for, does not exist`;
    if (schedule.createdAt !== signature.scheduleCreatedAt)
      return `schedule ${signature.workflowId} was created anew after the signature was made for it`;
    if (schedule.startedBy?.signature?.value !== signature.value)
      return `schedule ${signature.workflowId} does not carry this signature`;
    return undefined;
  }
  const claim = await ledger.claim({
    key: signatureKey(signature),
    runId: input.runId,
    holdUntil: (signature.expiresAt ?? signature.signedAt) + APPROVAL_MAX_SKEW_MS,
  });
  return claim === 'taken' ? 'this start signature was already used by another run' : undefined;
}
