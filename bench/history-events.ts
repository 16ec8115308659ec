// The history of one provisioning, event by event: tideline's provision-production-service and
// the expert hand-written workflow (bench/baseline/expert-workflows.ts), each run once at demo
// pace on one dev server and local cloud. Prints each history's events in order (markers with
// their name, activities with their type, upserts with the attributes they set) and the counts,
// so a change to what a run records can be checked against the baseline line by line.
//
// Run: npm run bench:events   (writes bench/results/history-events.json too)
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { startBaselineProvisioning, startBaselineWorker } from './baseline/harness';
import { startDevServer } from './lib/dev-server';
import { RESULTS_DIR } from './lib/repo';
import { startBenchStack } from './lib/stack';
import { DEMO_DURATIONS } from './settings';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** One event as a line: its type, and what it is about where the type alone does not say. */
export function describeEvent(event: HistoryEvent): string {
  const code = event.eventType ?? 0;
  const type = (temporal.api.enums.v1.EventType[code] ?? String(code)).replace(/^EVENT_TYPE_/, '');
  const marker = event.markerRecordedEventAttributes?.markerName;
  if (marker) return `${type} ${marker}`;
  const activity = event.activityTaskScheduledEventAttributes?.activityType?.name;
  if (activity) return `${type} ${activity}`;
  const fields = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
  if (fields) return `${type} ${Object.keys(fields).sort().join(',')}`;
  return type;
}

async function eventLines(handle: WorkflowHandle): Promise<string[]> {
  await handle.result();
  return ((await handle.fetchHistory()).events ?? []).map(describeEvent);
}

async function main(): Promise<void> {
  const server = await startDevServer();
  try {
    const stack = await startBenchStack({ server, durations: DEMO_DURATIONS });
    try {
      const queue = `${stack.taskQueue}-baseline`;
      const baselineWorker = await startBaselineWorker(stack, { taskQueue: queue });
      try {
        const [tideline, expert] = await Promise.all([
          stack.startProvisioning('tl-events').then(eventLines),
          startBaselineProvisioning(stack, queue, 'bl-events').then(eventLines),
        ]);
        for (const [side, lines] of [
          ['tideline', tideline],
          ['expert', expert],
        ] as const) {
          process.stdout.write(`\n${side}: ${lines.length} events\n`);
          lines.forEach((line, index) => process.stdout.write(`${String(index + 1).padStart(3)} ${line}\n`));
        }
        process.stdout.write(
          `\nevents per provisioning: tideline ${tideline.length}, expert ${expert.length} (${(tideline.length / expert.length).toFixed(2)}×)\n`,
        );
        mkdirSync(RESULTS_DIR, { recursive: true });
        writeFileSync(
          path.join(RESULTS_DIR, 'history-events.json'),
          `${JSON.stringify({ measuredAt: new Date().toISOString(), tideline, expert }, null, 2)}\n`,
        );
      } finally {
        await baselineWorker.stop();
      }
    } finally {
      await stack.close();
    }
  } finally {
    await server.stop();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
