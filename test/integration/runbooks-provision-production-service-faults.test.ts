// Honest under faults: ten provisioning runs at once while every API call fails with a 5xx one
// time in ten, and service.create applies the change yet answers 5xx (the create must be
// adopted on retry, not repeated). Exactly ten services result, each READY, PROD and attached.
import type { RunReport } from '../../contract/run-messages';
import { createVpc } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

const RUNS = 10;
/**
 * One call in ten fails: every run still meets several failures and retries (and the creates
 * that apply yet fail), while a run rarely fails an attempt four times in a row. A retried local
 * change makes two calls per attempt (it checks first whether it already took effect), so at 20 %
 * about a third of its attempts failed and a run that failed five in a row backed off 32 s and then
 * 64 s (the mutate policy): the suite took minutes waiting on one unlucky run's backoff.
 */
const FAULT_PROBABILITY = 0.1;
/** Generous: the mutate policy's backoff grows to 60 s after six failed attempts in a row. */
const TIMEOUT_MS = 240_000;
const APPLY_THEN_FAIL = 4;
/** Fixes the fault draws (and ids) of the local cloud, so a failure can be studied again. */
const SEED = 20_240_517;

let stack: RunbookStack;
let vpcId: string;

beforeAll(async () => {
  stack = await startRunbookStack({ timeScale: 0.05, seed: SEED });
  vpcId = await createVpc(stack);
}, 120_000);

afterAll(async () => stack?.close());

test(
  `${RUNS} concurrent provisionings under ${FAULT_PROBABILITY * 100} % 5xx and apply-then-fail creates: exactly ${RUNS} PROD services`,
  async () => {
    const [errors, applyThenFail] = stack.cloud.cloud.addFaults([
      { action: '*', kind: 'error', status: 503, probability: FAULT_PROBABILITY },
      // `error` rules are drawn first: a create reaching this rule was not failed before applying.
      { action: 'service.create', kind: 'applyThenFail', times: APPLY_THEN_FAIL },
    ]);
    const names = Array.from({ length: RUNS }, (_, i) => `svc-${String(i).padStart(2, '0')}`);
    const handles = await Promise.all(
      names.map((name) =>
        stack.start('provision-production-service.yaml', {
          project_id: stack.projectId,
          name,
          vpc_id: vpcId,
        }),
      ),
    );
    const reports = (await Promise.all(handles.map((handle) => handle.result()))) as RunReport[];
    const fired = new Map(stack.cloud.cloud.listFaults().map((rule) => [rule.id, rule.fired]));
    stack.cloud.cloud.clearFaults();

    expect(reports.map((report) => report.status)).toEqual(names.map(() => 'succeeded'));
    // The faults really happened: the apply-then-fail rule is spent, and calls failed — about one
    // in ten of the calls the runs make (8 with this seed), so at least one per two runs.
    expect(fired.get(applyThenFail!.id)).toBe(APPLY_THEN_FAIL);
    expect(fired.get(errors!.id)).toBeGreaterThanOrEqual(RUNS / 2);

    const services = await stack.api.service.list({ project_id: stack.projectId });
    expect(services.map((s) => s.name).sort()).toEqual(names);
    for (const service of services) {
      expect({
        name: service.name,
        status: service.status,
        environment: service.metadata?.environment,
        vpc: service.vpcEndpoint?.vpc_id,
        pooler: Boolean(service.connection_pooler?.endpoint?.host),
      }).toEqual({ name: service.name, status: 'READY', environment: 'PROD', vpc: vpcId, pooler: true });
    }
    // Each run reports the service named as it asked (an adopted create must not take another's).
    const idsByName = new Map(services.map((s) => [s.name, s.service_id]));
    expect(reports.map((report) => report.outputs.service_id)).toEqual(
      names.map((name) => idsByName.get(name)),
    );
  },
  TIMEOUT_MS,
);
