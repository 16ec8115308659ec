// Figure 4 — history cost: events in a provision-production-service run whose create takes 10 s,
// and one whose create takes 10 minutes. Polling happens inside one wait activity, so both must
// have the same number of events.
//
// The 10-minute run is compressed 50× (the service becomes READY after 12 real seconds) and its
// wait steps poll 50× more often (interval 20 ms, maxInterval 300 ms), so it makes the polls a real
// 10-minute wait makes; the 10-second run is real time with the runbook's own wait settings. In
// both, attaching to the VPC and enabling the pooler take 1 (nominal) second.
import { temporal } from '@temporalio/proto';
import type { RunbookDefinition } from '../dsl/definition';
import type { RunReport } from '../contract/run-messages';
import type { DevServer } from './lib/dev-server';
import { provisioningDefinition, startBenchStack, type Durations } from './lib/stack';

export interface HistoryCase {
  label: string;
  /** Nominal create time, ms. */
  createMs: number;
  /** Real ms per nominal ms. */
  scale: number;
}

export const HISTORY_CASES: HistoryCase[] = [
  { label: '10 s', createMs: 10_000, scale: 1 },
  { label: '10 min', createMs: 600_000, scale: 0.02 },
];

export interface HistoryResult {
  label: string;
  createMs: number;
  scale: number;
  events: number;
  /** service.get calls the run made (all its waits). */
  polls: number;
  eventTypes: Record<string, number>;
}

/** A copy of the definition whose wait steps poll `scale` times as long apart. */
export function scaleWaitIntervals(definition: RunbookDefinition, scale: number): RunbookDefinition {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== 'object') return value;
    const copy: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) copy[key] = walk(inner);
    if (copy.kind === 'wait') {
      copy.intervalMs = Math.max(1, Math.round((copy.intervalMs as number) * scale));
      copy.maxIntervalMs = Math.max(1, Math.round((copy.maxIntervalMs as number) * scale));
    }
    return copy;
  };
  return walk(definition) as RunbookDefinition;
}

async function measureCase(server: DevServer, historyCase: HistoryCase): Promise<HistoryResult> {
  // The create takes `createMs`; attaching and the pooler take 1 s each; all in compressed time.
  const real = (nominalMs: number) => Math.round(nominalMs * historyCase.scale);
  const durations: Durations = {
    queued: real(historyCase.createMs * 0.2),
    configuring: real(historyCase.createMs * 0.8),
    vpcAttach: real(1_000),
    pooler: real(1_000),
  };
  const stack = await startBenchStack({ server, durations });
  try {
    const definition =
      historyCase.scale === 1
        ? provisioningDefinition()
        : scaleWaitIntervals(provisioningDefinition(), historyCase.scale);
    const handle = await stack.startProvisioning('history', undefined, definition);
    const report = (await handle.result()) as RunReport;
    if (report.status !== 'succeeded') throw new Error(`history run ended ${report.status}`);
    const events = (await handle.fetchHistory()).events ?? [];
    const eventTypes: Record<string, number> = {};
    for (const event of events) {
      const code = event.eventType ?? 0;
      const type = (temporal.api.enums.v1.EventType[code] ?? String(code)).replace(/^EVENT_TYPE_/, '');
      eventTypes[type] = (eventTypes[type] ?? 0) + 1;
    }
    return {
      label: historyCase.label,
      createMs: historyCase.createMs,
      scale: historyCase.scale,
      events: events.length,
      polls: stack.cloud.stats().byAction['service.get']?.total ?? 0,
      eventTypes,
    };
  } finally {
    await stack.close();
  }
}

export function measureHistoryCost(
  server: DevServer,
  cases: HistoryCase[] = HISTORY_CASES,
): Promise<HistoryResult[]> {
  return Promise.all(cases.map((historyCase) => measureCase(server, historyCase)));
}
