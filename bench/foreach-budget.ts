// A foreach's error budget at fleet size: stop-dev-services' loop over 500 READY DEV services, 20
// at a time, with `maxErrors: 5`, while the local cloud fails 20 % of stops (a seeded 500, and the
// stop makes one attempt, so a failed answer fails its item). Expected: after the 6th failed item
// no new item starts, the items in flight finish, the run fails with FOREACH_MAX_ERRORS and a
// report, and the rollback starts again exactly the services that were stopped.
//
// Run: npm run bench:foreach-budget
import { loadRunbookText } from '../dsl/loader';
import { progressQuery, type StepRecord } from '../contract/run-messages';
import { seedFleet } from './lib/fleet';
import { startBenchStack } from './lib/stack';

const SERVICES = 500;
const CONCURRENCY = 20;
const MAX_ERRORS = 5;
const FAILING_STOPS = 0.2;

const RUNBOOK = `
apiVersion: tideline/v1
name: stop-dev-budget
description: Stops every DEV service, 20 at a time, with an error budget of ${MAX_ERRORS} failed items.
inputs:
  project_id: { type: string }
steps:
  - id: services
    call: service.list
    with: { project_id: '\${{ inputs.project_id }}' }
  - id: stop_each
    foreach: "\${{ steps.services.output.filter(s, s.metadata.environment == 'DEV' && s.status == 'READY') }}"
    as: service
    concurrency: ${CONCURRENCY}
    maxErrors: ${MAX_ERRORS}
    steps:
      - id: stop
        call: service.stop
        retry: { attempts: 1 }
        with: { project_id: '\${{ inputs.project_id }}', service_id: '\${{ service.service_id }}' }
        compensate:
          - id: start_again
            call: service.start
            with: { project_id: '\${{ inputs.project_id }}', service_id: '\${{ service.service_id }}' }
          - id: running_again
            wait: service.get
            with: { project_id: '\${{ inputs.project_id }}', service_id: '\${{ service.service_id }}' }
            until: "\${{ result.status == 'READY' }}"
      - id: paused
        wait: service.get
        with: { project_id: '\${{ inputs.project_id }}', service_id: '\${{ service.service_id }}' }
        until: "\${{ result.status == 'PAUSED' }}"
`;

const indexOf = (record: StepRecord) => Number(/\[(\d+)\]/.exec(record.key)?.[1]);

async function main(): Promise<void> {
  const stack = await startBenchStack({
    durations: { queued: 20, configuring: 20, pausing: 500, resuming: 200 },
    seed: 7,
  });
  await stack.startWorker();
  try {
    await seedFleet(stack.api, stack.access.projectId, SERVICES);
    stack.cloud.addFaults({
      action: 'service.stop',
      kind: 'error',
      status: 500,
      probability: FAILING_STOPS,
    });
    const definition = loadRunbookText(RUNBOOK, 'stop-dev-budget.yaml');
    const began = Date.now();
    const handle = await stack.startRun(definition, { project_id: stack.access.projectId });
    await handle.result().catch(() => undefined);
    const wallMs = Date.now() - began;
    const progress = await handle.query(progressQuery);
    const stops = progress.steps.filter((s) => /^stop_each\[\d+\]\.stop$/.test(s.key));
    const failed = stops.filter((s) => s.status === 'failed');
    const started = new Set(stops.map(indexOf));
    const lastStarted = Math.max(...started);
    const foreach = progress.steps.find((s) => s.key === 'stop_each');
    const services = await stack.api.service.list({ project_id: stack.access.projectId });
    console.log(
      JSON.stringify(
        {
          services: SERVICES,
          concurrency: CONCURRENCY,
          maxErrors: MAX_ERRORS,
          failingStops: FAILING_STOPS,
          runStatus: progress.status,
          started: started.size,
          contiguous: lastStarted === started.size - 1,
          failed: failed.length,
          succeededThenUndone: stops.filter((s) => s.status === 'compensated').length,
          neverStarted: SERVICES - started.size,
          readyAfterRollback: services.filter((s) => s.status === 'READY').length,
          wallMs,
          failure: foreach?.error,
        },
        null,
        2,
      ),
    );
  } finally {
    await stack.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
