// What the local cloud holds after a chaos round, judged against what each run was meant to do:
// every run that should succeed owns exactly one READY, PROD, attached, pooled service; a run that
// failed (on purpose) leaves nothing behind; no name exists twice.
import type { CloudClient } from '../../cloud/client';

export interface PlannedRun {
  name: string;
  /** Attaches to a VPC that does not exist: must fail and delete what it created. */
  doomed: boolean;
}

export interface Audit {
  /** Services beyond the first with the same name. */
  duplicates: number;
  /** Services left by failed runs, or owned by no run at all. */
  orphans: number;
  /** Runs meant to succeed whose service is missing or not READY/PROD/attached/pooled. */
  incomplete: string[];
}

export async function auditCloud(
  api: CloudClient,
  projectId: string,
  vpcId: string,
  runs: readonly PlannedRun[],
  succeeded: ReadonlySet<string>,
): Promise<Audit> {
  const services = await api.service.list({ project_id: projectId });
  const byName = new Map<string, typeof services>();
  for (const service of services) {
    const name = service.name ?? '';
    byName.set(name, [...(byName.get(name) ?? []), service]);
  }
  let duplicates = 0;
  for (const group of byName.values()) duplicates += Math.max(0, group.length - 1);

  const planned = new Map(runs.map((run) => [run.name, run]));
  let orphans = 0;
  const incomplete: string[] = [];
  for (const [name, group] of byName) {
    const run = planned.get(name);
    if (run === undefined || !succeeded.has(name)) orphans += group.length;
  }
  for (const run of runs) {
    if (run.doomed || !succeeded.has(run.name)) continue;
    const service = byName.get(run.name)?.[0];
    const healthy =
      service?.status === 'READY' &&
      service.metadata?.environment === 'PROD' &&
      service.vpc_endpoint?.vpc_id === vpcId &&
      Boolean(service.connection_pooler?.endpoint);
    if (!healthy) incomplete.push(run.name);
  }
  return { duplicates, orphans, incomplete };
}
