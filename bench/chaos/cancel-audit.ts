// After a cancelled run: what the local cloud holds now against what it held before the run. A
// cancelled (or failed) run must leave the cloud as it found it — its compensation deletes what it
// created and puts back what it changed. A run that finished before the cancel could take effect
// owns what its runbook documents, and nothing else.
import type { CloudInventory, ServiceSummary } from '../lib/cancel-runs';

export interface CancelAudit {
  /** Resources the run left behind that neither the cloud held before nor the runbook documents. */
  leftovers: string[];
  /** Resources the cloud held before that are changed or gone and not put back. */
  notRestored: string[];
}

/** What a run that succeeded is documented to leave (names of services it adds or changes). */
export interface Documented {
  added: string[];
  changed: string[];
}

const describe = (s: ServiceSummary) =>
  `${s.name} (${s.status}, ${s.environment ?? 'no env'}, vpc ${s.vpc ?? 'none'}, pooler ${s.pooler ? 'on' : 'off'})`;

function byName(services: ServiceSummary[]): Map<string, ServiceSummary[]> {
  const map = new Map<string, ServiceSummary[]>();
  for (const service of services) {
    const name = service.name ?? '';
    map.set(name, [...(map.get(name) ?? []), service]);
  }
  return map;
}

export function auditCancel(
  before: CloudInventory,
  after: CloudInventory,
  documented: Documented = { added: [], changed: [] },
): CancelAudit {
  const leftovers: string[] = [];
  const notRestored: string[] = [];
  const was = byName(before.services);
  const now = byName(after.services);
  for (const [name, services] of now) {
    const earlier = was.get(name) ?? [];
    const extra = services.length - earlier.length;
    const allowed = documented.added.includes(name) ? 1 : 0;
    if (extra > allowed) leftovers.push(...services.slice(earlier.length + allowed).map(describe));
    if (earlier.length === 0 || documented.changed.includes(name)) continue;
    const changed = earlier.filter((s) => !services.some((n) => JSON.stringify(n) === JSON.stringify(s)));
    notRestored.push(...changed.map((s) => `${describe(s)} is now ${services.map(describe).join(', ')}`));
  }
  for (const [name, services] of was) {
    if (!now.has(name)) notRestored.push(...services.map((s) => `${describe(s)} is gone`));
  }
  if (JSON.stringify(before.vpcs) !== JSON.stringify(after.vpcs)) {
    notRestored.push(`VPCs/peerings were ${JSON.stringify(before.vpcs)}, now ${JSON.stringify(after.vpcs)}`);
  }
  return { leftovers, notRestored };
}
