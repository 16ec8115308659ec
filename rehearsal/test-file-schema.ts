// The format of a runbook test file (`*.test.yaml`): cases, each naming a runbook, its inputs, the
// local cloud's starting state, injected faults, scripted approvals (and a cancel) and what must
// hold afterwards.
// This zod schema is the single source of the format: the loader parses with it, the types are
// inferred from it and schema/runbook-test.schema.json (for editors) is generated from it.
import { z } from 'zod';
import { ACTION_NAMES, type ActionName } from '../cloud/operations';
import { ServiceAddon } from '../cloud/requests';
import { DURATION_EXAMPLES, isDuration, parseDuration } from '../dsl/durations';
import { Durations } from '../local-cloud/config';
import { FAULT_KINDS, FaultRuleInput, MetricSeriesName, OutcomeKind } from '../local-cloud/fault-schema';

export const RUNBOOK_TEST_SCHEMA_FILE = 'schema/runbook-test.schema.json';

const Name = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,62}$/, 'must be lowercase letters, digits and hyphens, starting with a letter');

const Operation = z.enum(ACTION_NAMES as [ActionName, ...ActionName[]], {
  error: 'must be an operation name such as "service.create"',
});

const Environment = z.enum(['DEV', 'PROD']);

const CPU_SIZES = ['500', '1000', '2000', '4000', '8000', '16000', '32000'] as const;
const CpuMillis = z.union([z.enum(CPU_SIZES), z.literal(CPU_SIZES.map(Number))]).default('1000');

const ReplicaCount = z.number().int().min(0).max(2).describe('HA replicas in total');
const SyncReplicaCount = z
  .number()
  .int()
  .min(0)
  .max(1)
  .describe('How many of them are synchronous (1 needs replica_count 2)');

const HaLayout = z
  .strictObject({ replica_count: ReplicaCount, sync_replica_count: SyncReplicaCount.default(0) })
  .refine((layout) => layout.sync_replica_count === 0 || layout.replica_count === 2, {
    path: ['sync_replica_count'],
    message: 'a synchronous replica needs replica_count 2',
  });

const CloudReplicaSet = z.strictObject({
  name: Name.describe("The replica set's name"),
  nodes: z.number().int().min(1).max(10).default(1),
  cpu_millis: CpuMillis.describe('Millicores per node; memory follows at 4 GB per 1000'),
});

const CloudService = z.strictObject({
  name: Name.describe('The service name; inputs reach its id as ${{ cloud.services.NAME.id }}'),
  status: z.enum(['READY', 'PAUSED']).default('READY').describe('The state it is in when the case starts'),
  cpu_millis: CpuMillis.describe('Millicores; memory follows at 4 GB per 1000'),
  environment: Environment.default('DEV'),
  vpc: Name.optional().describe('A VPC of this case (by name) to attach the service to'),
  ha_replicas: HaLayout.optional().describe('Its HA layout, set with service.setHA (none when absent)'),
  pooler: z.boolean().default(false).describe('Whether it has a connection pooler (service.enablePooler)'),
  replica_sets: z
    .array(CloudReplicaSet)
    .default([])
    .describe('Read replica sets it has, active when the case starts'),
});

const CloudPeering = z.strictObject({
  peer_account_id: z.string().min(1),
  peer_vpc_id: z.string().min(1),
  peer_region_code: z.string().min(1).default('us-east-1'),
});

const CloudVpc = z.strictObject({
  name: Name.describe('The VPC name; inputs reach its id as ${{ cloud.vpcs.NAME.id }}'),
  cidr: z.string().default('10.0.0.0/16'),
  peerings: z.array(CloudPeering).default([]).describe('Peerings it has, active when the case starts'),
});

/** The longest a case may make one of its cloud's transitions last, on the case's clock. */
export const MAX_TRANSITION = '1h';

const TransitionDuration = z
  .string()
  .refine(isDuration, { message: `must be a duration such as ${DURATION_EXAMPLES}` })
  .refine((text) => !isDuration(text) || parseDuration(text) <= parseDuration(MAX_TRANSITION), {
    message: `must be at most ${MAX_TRANSITION}`,
  });

const StartingCloud = z
  .strictObject({
    services: z.array(CloudService).default([]),
    vpcs: z.array(CloudVpc).default([]),
    durations: z
      .partialRecord(Durations.keyof(), TransitionDuration)
      .default({})
      .describe(
        "How long the cloud's transitions take on the case's clock (the local cloud's durations, docs/local-cloud.md); the starting state's are skipped. A slow one shows whether the run waits for it",
      ),
  })
  .describe('What the local cloud holds when the case starts, created through its API')
  .meta({ id: 'StartingCloud' });

export const TestFault = z
  .strictObject({
    operation: z.union([z.literal('*'), Operation]).describe('The Cloud API operation, or "*" for all'),
    kind: z.enum(FAULT_KINDS).default('error').describe("The local cloud's fault kind (docs/local-cloud.md)"),
    nth: z
      .number()
      .int()
      .min(1)
      .default(1)
      .describe('The first call of the operation it applies to (1-based)'),
    times: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('How many calls it applies to; every later one when absent'),
    probability: z.number().min(0).max(1).optional(),
    status: z.number().int().min(500).max(599).optional().describe('error, applyThenFail: the 5xx answered'),
    message: z.string().min(1).max(500).optional(),
    mode: z.enum(['error', 'drop']).optional().describe('applyThenFail: answer a 5xx or drop the connection'),
    ms: z.number().int().min(0).max(3_600_000).optional().describe('latency: real milliseconds added'),
    retryAfterSeconds: z.number().int().min(0).max(86_400).optional(),
    outcome: OutcomeKind.optional(),
    service: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe('metricAnomaly: the service (its name or id) whose metrics read the anomaly'),
    series: MetricSeriesName.optional().describe(
      'metricAnomaly: the metric series (default timescale_cloud_system_cpu_usage_millicores)',
    ),
    value: z
      .number()
      .min(0)
      .optional()
      .describe('metricAnomaly: what every bucket of the series reads from the fault on'),
    field: z
      .string()
      .optional()
      .describe(
        "omitField: the answer's field to leave out, a dotted path such as resources.0.spec.cpu_millis",
      ),
    asNull: z.boolean().optional().describe('omitField: send the field as null instead of leaving it out'),
  })
  .superRefine((fault, ctx) => {
    // The local cloud's own rule schema decides which fields each kind takes.
    const checked = FaultRuleInput.safeParse(faultRule(fault));
    for (const issue of checked.success ? [] : checked.error.issues) {
      const [first, ...rest] = issue.path;
      ctx.addIssue({
        code: 'custom',
        path: [first === 'action' ? 'operation' : (first ?? 'kind'), ...rest].filter(
          (p): p is string | number => typeof p === 'string' || typeof p === 'number',
        ),
        message: issue.message,
      });
    }
  });
export type TestFault = z.output<typeof TestFault>;

/** A test fault as the local cloud's rule (`nth` is applied by the runner, not the rule). */
export function faultRule(fault: z.input<typeof TestFault>): Record<string, unknown> {
  const { operation, nth: _nth, kind = 'error', ...rest } = fault;
  const fields = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  return { action: operation, kind, ...fields };
}

/** How long a scripted answer may wait: a case runs on real time (no time skipping). */
export const MAX_ANSWER_DELAY = '10m';

const AnswerDelay = z
  .string()
  .refine(isDuration, { message: `must be a duration such as ${DURATION_EXAMPLES}` })
  .refine((text) => !isDuration(text) || parseDuration(text) <= parseDuration(MAX_ANSWER_DELAY), {
    message: `must be at most ${MAX_ANSWER_DELAY}: a case runs on real time`,
  });

/** A person's or a group's name, as the worker's `approvals:` section writes it. */
const PersonName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/);

const Approval = z.strictObject({
  step: z.string().min(1).describe('The approval step to answer'),
  decision: z.enum(['approve', 'reject']),
  by: z.string().min(1).default('tideline-test'),
  comment: z.string().min(1).optional(),
  after: AnswerDelay.optional().describe(
    'Answer this long after the approval is asked (real time, at most 10m); an answer that comes after the step timed out is not sent',
  ),
});

const HoldAction = z
  .strictObject({
    action: z
      .enum(['retry', 'skip', 'rollback'])
      .describe('What the operator does, as tideline retry|skip|rollback'),
    step: z.string().min(1).optional().describe('The step expected to be held (its key or id)'),
    fixFaults: z
      .boolean()
      .default(false)
      .describe("Remove the case's faults first, standing for the fix an operator makes before a retry"),
    inputs: z.record(z.string(), z.unknown()).optional().describe('retry: input values to change first'),
    with: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("retry: values for fields the step's with sets"),
    output: z.unknown().optional().describe('skip: the output the step is taken to have produced'),
    by: z.string().min(1).default('tideline-test'),
    reason: z.string().min(1).optional(),
  })
  .superRefine((hold, ctx) => {
    const onlyFor = { inputs: 'retry', with: 'retry', output: 'skip' } as const;
    for (const [field, action] of Object.entries(onlyFor))
      if (hold[field as keyof typeof onlyFor] !== undefined && hold.action !== action)
        ctx.addIssue({ code: 'custom', path: [field], message: `only a ${action} takes ${field}` });
  });
export type HoldAction = z.output<typeof HoldAction>;

const StepStatus = z.enum([
  'pending',
  'running',
  'done',
  'failed',
  'skipped',
  'compensating',
  'compensated',
  'compensation-failed',
]);

const ReplicaSetExpectation = z.union([
  z.literal('absent'),
  z.strictObject({
    status: z.string().min(1).optional().describe('creating, active, resizing, deleting or error'),
    nodes: z.number().int().optional(),
    cpu_millis: z.number().int().optional(),
    environment: Environment.optional(),
    pooler: z.boolean().optional().describe('Whether it has a connection pooler endpoint'),
  }),
]);

const ServiceExpectation = z.union([
  z.literal('absent'),
  z.strictObject({
    status: z.string().min(1).optional(),
    environment: Environment.optional(),
    cpu_millis: z.number().int().optional(),
    vpc: Name.optional().describe('The VPC (by name) it is attached to'),
    pooler: z.boolean().optional().describe('Whether it has a connection pooler endpoint'),
    addons: z
      .array(ServiceAddon)
      .max(1)
      .optional()
      .describe(
        'The add-on it was made with, as its service_type shows it: [time-series] (a time-series type), [ai] (VECTOR) or [] (POSTGRES)',
      ),
    password: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The password it has now, e.g. ${{ inputs.previous_password }}; compared without showing either value',
      ),
    ha_replicas: z
      .strictObject({
        replica_count: ReplicaCount.optional(),
        sync_replica_count: SyncReplicaCount.optional(),
      })
      .optional()
      .describe('Its HA layout (the counts given)'),
    replica_sets: z
      .record(z.string(), ReplicaSetExpectation)
      .optional()
      .describe('Its read replica sets by name: their fields, or absent'),
  }),
]);

const PeeringExpectation = z.union([
  z.literal('absent'),
  z.strictObject({
    status: z.string().min(1).optional().describe('pending, active or failed'),
    peer_account_id: z.string().min(1).optional(),
    peer_region_code: z.string().min(1).optional(),
  }),
]);

const VpcExpectation = z.union([
  z.literal('absent'),
  z.literal('present'),
  z.strictObject({
    cidr: z.string().min(1).optional(),
    region_code: z.string().min(1).optional(),
    peerings: z
      .record(z.string(), PeeringExpectation)
      .optional()
      .describe("Its peerings by the peer VPC's id: their fields, or absent"),
  }),
]);

/** A policy rule that applied, as the run's audit records it. */
const PolicyExpectation = z.strictObject({
  rule: z.string().min(1),
  step: z.string().min(1).describe('The step it was checked for (its key), or `start`'),
  effect: z.enum(['deny', 'warn', 'require-approval', 'window']).optional(),
  open: z.boolean().optional().describe('For a window: whether it was open'),
  opensAt: z.iso.datetime({ offset: true }).optional().describe('For a closed window: when it opens next'),
});

const Expectations = z.strictObject({
  status: z
    .enum(['succeeded', 'failed', 'cancelled', 'held', 'waiting'])
    .describe('How the run ends; `waiting`: it waits for a closed change window (then the case ends)'),
  policies: z
    .array(PolicyExpectation)
    .optional()
    .describe("Every policy rule that applied to the run, in order (the file's `governance`)"),
  failure: z
    .strictObject({
      step: z.string().min(1).optional(),
      type: z.string().min(1).optional(),
      message: z.string().min(1).optional().describe('A text the failure message contains'),
    })
    .optional(),
  outputs: z.record(z.string(), z.unknown()).optional().describe('Outputs that must have these values'),
  steps: z.record(z.string(), StepStatus).optional().describe('Step id (or key) → its final status'),
  calls: z
    // Keys are checked when the file loads (a typo gets a suggestion); editors get the list.
    .record(z.string(), z.number().int().min(0))
    .meta({ propertyNames: { enum: [...ACTION_NAMES] } })
    .optional()
    .describe('Operation → how many requests the run made to it (faulted ones included)'),
  callOrder: z
    .array(Operation)
    .min(2)
    .optional()
    .describe('Operations whose first requests of the run came in this order (others may come between them)'),
  cloud: z
    .strictObject({
      nothingElse: z
        .boolean()
        .optional()
        .describe(
          'true: the project holds nothing not named here — no other service or VPC, and no other replica set or peering of those named with fields',
        ),
      services: z
        .record(z.string(), ServiceExpectation)
        .optional()
        .describe('By name: its fields, or absent'),
      vpcs: z
        .record(z.string(), VpcExpectation)
        .optional()
        .describe('By name: present, its fields, or absent'),
    })
    .meta({ id: 'CloudExpectations' })
    .optional(),
  noSecretsInHistory: z
    .boolean()
    .optional()
    .describe("No secret input or output value appears in the run's history as Temporal stores it"),
});

export const TestCase = z.strictObject({
  name: z.string().min(1).max(200),
  runbook: z.string().min(1).describe('The runbook file, relative to this test file'),
  inputs: z.record(z.string(), z.unknown()).default({}),
  cloud: StartingCloud.default({ services: [], vpcs: [], durations: {} }),
  faults: z.array(TestFault).default([]),
  approvals: z.array(Approval).default([]),
  onFailure: z.enum(['rollback', 'hold']).optional().describe("Overrides the runbook's onFailure"),
  cancel: z
    .strictObject({
      step: z.string().min(1).describe('The step (id or key) to watch'),
      status: StepStatus.default('done').describe('Cancel once the step has this status'),
      holdCloud: z
        .boolean()
        .default(false)
        .describe(
          "The cloud stands still (no transition ends) from the run's start until the run has taken the cancel, so a wait for a change cannot end before the cancel lands",
        ),
    })
    .optional()
    .describe('Cancels the run, as `tideline cancel` does, once a step has reached a status'),
  starter: z
    .strictObject({
      name: PersonName,
      groups: z.array(PersonName).default([]),
    })
    .optional()
    .describe("Who starts the run, signed with a key the case's worker registers, and their groups"),
  people: z
    .record(PersonName, z.strictObject({ groups: z.array(PersonName).default([]) }))
    .optional()
    .describe(
      "People the case's worker knows, with their groups: each gets a key it registers, and a scripted approval `by` one of them is signed with it, as `tideline approve --by NAME` signs it",
    ),
  clock: z
    .union([
      z.iso
        .datetime({ offset: true })
        .describe("The worker's time when the case starts; it runs on in real time from there"),
      z
        .strictObject({
          at: z.iso.datetime({ offset: true }).describe("The worker's time at the run's start"),
          perCheck: z
            .string()
            .refine(isDuration, { message: `must be a duration such as ${DURATION_EXAMPLES}` })
            .describe(
              'How much later each policy check is than the one before; a wait for a closed window moves the clock to its opening at once',
            ),
        })
        .describe(
          'A stepped clock, so a window closing in the middle of a run happens at the same step every time',
        ),
    ])
    .optional()
    .describe("The worker's time, as policies and change windows read it"),
  whenHeld: z
    .array(HoldAction)
    .default([])
    .describe('What the operator does each time the run holds at a failed step, in order'),
  expect: Expectations,
});
export type TestCase = z.output<typeof TestCase>;
export type Expectations = z.output<typeof Expectations>;

/** A finding `tideline drift` reports: the service (by its name in the case's cloud) and the rule. */
const ExpectedFinding = z.strictObject({
  service: Name.describe("The service, by its name in the case's cloud"),
  rule: z.string().min(1).describe('The rule of the state file it breaks'),
});

const StateCaseExpectations = Expectations.pick({ calls: true, cloud: true }).extend({
  findings: z
    .array(ExpectedFinding)
    .describe('Exactly the findings after the repair runs ended (typically none)'),
});

export const StateTestCase = z
  .strictObject({
    name: z.string().min(1).max(200),
    state: z.string().min(1).describe('The state file (kind: State), relative to this test file'),
    cloud: StartingCloud.default({ services: [], vpcs: [], durations: {} }),
    findings: z
      .array(ExpectedFinding)
      .describe("Exactly the findings `tideline drift` reports on the case's starting cloud"),
    reconcile: z
      .boolean()
      .default(false)
      .describe(
        "Run the repairs as `tideline reconcile` does, each an ordinary run on the case's worker, then check `expect`",
      ),
    expect: StateCaseExpectations.optional().describe(
      'With reconcile: the findings after the repairs, and the requests and end state of the cloud',
    ),
  })
  .superRefine((testCase, ctx) => {
    if (testCase.reconcile && testCase.expect === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['reconcile'],
        message: 'a case that reconciles says what it expects after: expect.findings (typically [])',
      });
    if (!testCase.reconcile && testCase.expect !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['expect'],
        message:
          'only a case with reconcile: true has an after to expect; the findings before are `findings`',
      });
  });
export type StateTestCase = z.output<typeof StateTestCase>;
export type ExpectedFinding = z.output<typeof ExpectedFinding>;

export const RunbookTestFile = z.strictObject({
  governance: z
    .strictObject({ policies: z.unknown().optional(), calendars: z.unknown().optional() })
    .optional()
    .describe(
      "Policies and calendars as a worker's configuration has them; every case runs on a worker with them",
    ),
  cases: z
    .array(z.union([TestCase, StateTestCase]))
    .min(1)
    .describe('Cases of a runbook (`runbook:`) or of a state file (`state:`)'),
});
export type RunbookTestFile = z.output<typeof RunbookTestFile>;

/** The JSON Schema (draft-07) of a test file, for editors. */
export function runbookTestJsonSchemaText(): string {
  const schema = z.toJSONSchema(RunbookTestFile, { target: 'draft-7', io: 'input', unrepresentable: 'any' });
  return `${JSON.stringify(schema, null, 2)}\n`;
}
