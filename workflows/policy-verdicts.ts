// One verdict from the policies' verdicts on a step for several people (the run's starter and
// those who acted on it): a deny or a refusing window of any refuses, every approval any of them
// needs is asked, and the step waits for the latest opening any of them waits for. Workflow code:
// pure.
import { noPolicyVerdict, type PolicyRecord, type StepPolicyVerdict } from '../contract/policy-messages';

/** A record's meaning, without when it was made: the same rule said the same for two people. */
function sameRecord(record: PolicyRecord): string {
  const { at: _at, ...meaning } = record;
  return JSON.stringify(Object.entries(meaning).sort(([a], [b]) => a.localeCompare(b)));
}

export function strictest(verdicts: readonly StepPolicyVerdict[]): StepPolicyVerdict {
  const [first, ...others] = verdicts;
  if (first === undefined) return noPolicyVerdict();
  if (others.length === 0) return first;
  const records = new Map<string, PolicyRecord>();
  const approvals = new Map<string, StepPolicyVerdict['approvals'][number]>();
  let latest: StepPolicyVerdict | undefined;
  for (const verdict of verdicts) {
    for (const record of verdict.records)
      if (!records.has(sameRecord(record))) records.set(sameRecord(record), record);
    for (const need of verdict.approvals) {
      const id = `${need.rule}/${need.override}`;
      const before = approvals.get(id);
      if (before === undefined || before.count < need.count) approvals.set(id, need);
    }
    if (verdict.waitUntil !== null && (latest?.waitUntil ?? -Infinity) < verdict.waitUntil) latest = verdict;
  }
  return {
    records: [...records.values()],
    denied: verdicts.some((verdict) => verdict.denied),
    refusedByWindow: verdicts.some((verdict) => verdict.refusedByWindow),
    waitUntil: latest?.waitUntil ?? null,
    waitMs: latest?.waitMs ?? null,
    approvals: [...approvals.values()],
  };
}
