// The runbook schema as authors write it (YAML → this), the single source of truth for the loader,
// the validator, the JSON Schema for editors and the inferred types. Each step has exactly one
// kind key (`call`, `wait`, …); the kinds are separate strict objects so unknown fields are errors.
import { z } from 'zod';
import { ACTION_NAMES } from '../cloud/operations';
import { NOTIFICATION_EVENTS, NOTIFICATION_TARGET_NAME } from './notify-subscriptions';
import {
  API_VERSION,
  Condition,
  Duration,
  DurationOrTemplate,
  Expression,
  InputSpec,
  MAX_ERRORS_PERCENT_PATTERN,
  OutputSpec,
  Retry,
  RunbookName,
  StepId,
  TemplateString,
  VariableName,
  WithInput,
} from './schema-primitives';
import { ForeachTargets } from './targets';

export * from './schema-primitives';

/** The kind keys, in the order of the `Step` union's options. */
export const STEP_KINDS = [
  'call',
  'wait',
  'sleep',
  'approve',
  'assert',
  'parallel',
  'foreach',
  'runbook',
  'fail',
  'watch',
] as const;
export type StepKind = (typeof STEP_KINDS)[number];

export const ActionNameSchema = z.enum(ACTION_NAMES as [string, ...string[]]);

/** What a failed step does: roll the run back (default), or hold it for an operator. */
export const OnFailure = z.enum(['rollback', 'hold']).meta({
  id: 'OnFailure',
  description:
    'When a step fails (after its retries): `rollback` compensates and fails the run (default); `hold` keeps the run open at the failed step until an operator retries, skips or rolls back (`tideline retry|skip|rollback`)',
});

const common = {
  id: StepId,
  name: z.string().optional().describe('A short title shown in progress output'),
  description: z.string().optional(),
  if: Condition.optional().describe('Run the step only when this is true; otherwise it is skipped'),
  timeout: DurationOrTemplate.optional().describe(
    'Limit for the whole step (for wait: the overall deadline, default 30m; for approve: when the default applies)',
  ),
  retry: Retry.optional(),
  continueOnError: z
    .boolean()
    .optional()
    .describe('Record a failure of this step and go on with the next one'),
  onFailure: OnFailure.optional().describe(
    "What this step's failure does (default: the runbook's `onFailure`); on parallel/foreach: the default for the steps inside",
  ),
};

// Recursive members are getters with explicit types, so zod builds them lazily and TypeScript can
// infer the recursive `Step` type.
type StepSchema = typeof Step;
type StepList = z.ZodArray<StepSchema>;
type Compensation = z.ZodOptional<z.ZodUnion<readonly [StepSchema, StepList]>>;
const compensation = (): Compensation =>
  z
    .union([Step, z.array(Step).min(1)])
    .optional()
    .describe('What undoes this step if a later step fails: one step or a list, run newest first');

export const CallStep = z
  .strictObject({
    ...common,
    call: ActionNameSchema.describe('The action to run, e.g. service.create'),
    with: WithInput.optional(),
    adopt: z.boolean().optional().describe('For creates: take over an existing resource of the same name'),
    get compensate(): Compensation {
      return compensation();
    },
  })
  .meta({ id: 'CallStep', description: 'Run one Cloud API action' });

export const WaitStep = z
  .strictObject({
    ...common,
    wait: ActionNameSchema.describe('A read action to poll, e.g. service.get'),
    with: WithInput.optional(),
    until: Expression.optional().describe(
      'CEL over `result` (the last answer): the wait ends when it is true',
    ),
    failIf: Expression.optional().describe('CEL over `result`: the wait fails at once when it is true'),
    untilDeleted: z.boolean().optional().describe('Wait until the resource is gone (the read answers 404)'),
    interval: Duration.optional().describe('First pause between polls (default 1s)'),
    maxInterval: Duration.optional().describe('Longest pause between polls (default 15s)'),
    get compensate(): Compensation {
      return compensation();
    },
  })
  .meta({ id: 'WaitStep', description: 'Poll a read action until a condition holds, within `timeout`' });

export const WatchStep = z
  .strictObject({
    ...common,
    watch: ActionNameSchema.describe('A read action to read at every interval, e.g. service.get'),
    with: WithInput.optional(),
    for: Duration.describe('How long to watch: the step succeeds when it passes with `failIf` never true'),
    every: Duration.optional().describe('The pause between reads (default 15s)'),
    failIf: Expression.describe(
      'CEL over `result` (the latest answer): the watch fails as soon as it is true',
    ),
    get compensate(): Compensation {
      return compensation();
    },
  })
  .meta({
    id: 'WatchStep',
    description:
      'A bake period: read an action at an interval for a while, and fail as soon as a condition holds',
  });

export const SleepStep = z
  .strictObject({
    ...common,
    sleep: DurationOrTemplate.describe('How long to pause'),
    get compensate(): Compensation {
      return compensation();
    },
  })
  .meta({ id: 'SleepStep', description: 'Pause for a while' });

/** A person (`alice`) or a group of the worker's configuration (`group:dba`). */
export const Approver = z
  .string()
  .regex(
    /^(group:)?[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/,
    'must be a name or group:NAME (letters, digits, . _ @ -)',
  )
  .describe('A person (alice) or a group of the worker configuration (group:dba)');

export const ApproveStep = z
  .strictObject({
    ...common,
    approve: z.string().min(1).describe('The question shown to the approver; may use ${{ … }}'),
    default: z
      .enum(['approve', 'reject'])
      .optional()
      .describe('The outcome when `timeout` passes without an answer (default reject)'),
    approvers: z
      .array(Approver)
      .min(1)
      .optional()
      .describe(
        'Who may decide: names and `group:NAME` (groups are defined in the worker configuration). ' +
          'With approvers, every decision must be signed (`tideline keys create`) and is verified by the worker',
      ),
    minApprovals: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('How many different approvers must approve (default 1); needs `approvers`'),
    allowSelfApproval: z
      .boolean()
      .optional()
      .describe('false: whoever started the run may not approve it (default true); needs `approvers`'),
    get compensate(): Compensation {
      return compensation();
    },
  })
  .meta({ id: 'ApproveStep', description: 'Wait for a human to approve or reject; reject fails the step' });

export const AssertStep = z
  .strictObject({
    ...common,
    assert: Expression.describe('A CEL condition that must be true'),
    message: z.string().optional().describe('The failure reason when it is false; may use ${{ … }}'),
    get compensate(): Compensation {
      return compensation();
    },
  })
  .meta({ id: 'AssertStep', description: 'Fail the run unless a condition holds' });

export const ParallelBranch = z
  .strictObject({
    id: StepId,
    name: z.string().optional(),
    get steps(): StepList {
      return z.array(Step).min(1);
    },
  })
  .meta({ id: 'ParallelBranch', description: 'One branch of a parallel step; its steps run in order' });

export const ParallelStep = z
  .strictObject({
    ...common,
    parallel: z.array(ParallelBranch).min(1).describe('Branches that run at the same time'),
    get compensate(): Compensation {
      return compensation();
    },
  })
  .meta({ id: 'ParallelStep', description: 'Run branches concurrently; the step fails if any branch fails' });

/** `maxErrors`: a count of items, or a percentage of the list (floored: 5% of 10 items is 0). */
export const MaxErrors = z
  .union([
    z.int().min(0),
    z
      .string()
      .regex(
        MAX_ERRORS_PERCENT_PATTERN,
        'must be a count (0, 1, …) or a percentage of the items from 0% to 100%, e.g. 10% or 2.5%',
      ),
  ])
  .meta({
    id: 'MaxErrors',
    description:
      'How many items may fail before no new item starts: a count, or a percentage of the items ("10%", floored: 5% of 10 items is 0). 0 stops at the first failure; "100%" never stops early. Failures within it are tolerated and the foreach succeeds',
  });

/** `ramp`: start few items at a time and widen towards `concurrency` while items succeed. */
export const ForeachRamp = z
  .strictObject({
    start: z.int().min(1).max(100).optional().describe('Items in flight at first (default 1)'),
    factor: z
      .number()
      .gt(1)
      .max(10)
      .optional()
      .describe('How much the width grows after that many items in a row succeeded (default 2)'),
  })
  .meta({
    id: 'ForeachRamp',
    description:
      'Canary-style start: `start` items at a time, multiplied by `factor` (up to `concurrency`) each time as many items in a row succeeded; the first failed item stops the widening for the rest of the loop',
  });

export const ForeachStep = z
  .strictObject({
    ...common,
    foreach: z
      .union([Expression, ForeachTargets])
      .describe('CEL giving the list of items, or `targets:` selecting services of a project'),
    as: VariableName.optional().describe('The name of the current item in expressions (default item)'),
    concurrency: z
      .union([z.int().min(1).max(100), TemplateString])
      .optional()
      .describe('How many items run at once (default 1); a number or a ${{ … }} giving one'),
    maxErrors: MaxErrors.optional(),
    onMaxErrors: z
      .enum(['finish', 'cancel'])
      .optional()
      .describe(
        'Once more items failed than `maxErrors` allows: let the items in flight finish (default) or cancel them',
      ),
    ramp: ForeachRamp.optional(),
    waves: z
      .int()
      .min(1)
      .max(100)
      .optional()
      .describe(
        'Start items in waves of this many: a wave starts only once every item of the one before it has ended, so a failure stops the next wave (with `maxErrors`, once the budget is spent); `concurrency` defaults to it',
      ),
    get steps(): StepList {
      return z.array(Step).min(1);
    },
    get compensate(): Compensation {
      return compensation();
    },
  })
  .meta({ id: 'ForeachStep', description: 'Run steps once per item of a list' });

export const RunbookStep = z
  .strictObject({
    ...common,
    runbook: z.string().min(1).describe('The child runbook file, relative to this one'),
    with: WithInput.optional().describe('The child runbook inputs'),
    get compensate(): Compensation {
      return compensation();
    },
  })
  .meta({ id: 'RunbookStep', description: 'Run another runbook as a child' });

export const FailStep = z
  .strictObject({
    ...common,
    fail: z.string().min(1).describe('The failure reason; may use ${{ … }}'),
    get compensate(): Compensation {
      return compensation();
    },
  })
  .meta({ id: 'FailStep', description: 'Fail the run with a message (usually with `if`)' });

export const Step = z
  .union([
    CallStep,
    WaitStep,
    SleepStep,
    ApproveStep,
    AssertStep,
    ParallelStep,
    ForeachStep,
    RunbookStep,
    FailStep,
    WatchStep,
  ])
  .meta({
    id: 'Step',
    description:
      'One step: exactly one of call, wait, sleep, approve, assert, parallel, foreach, runbook, fail, watch',
  });

/** The schema of each step kind, by its kind key. */
export const STEP_KIND_SCHEMAS = {
  call: CallStep,
  wait: WaitStep,
  sleep: SleepStep,
  approve: ApproveStep,
  assert: AssertStep,
  parallel: ParallelStep,
  foreach: ForeachStep,
  runbook: RunbookStep,
  fail: FailStep,
  watch: WatchStep,
} as const satisfies Record<StepKind, z.ZodType>;

const NotifyEntry = z
  .strictObject({
    target: z
      .string()
      .regex(
        NOTIFICATION_TARGET_NAME,
        'must be a target name (letters, digits, . _ -), at most 64 characters',
      )
      .describe('A target of the worker configuration’s `notifications.targets`'),
    events: z
      .array(z.enum(NOTIFICATION_EVENTS))
      .min(1)
      .optional()
      .describe('Which events it hears (default: all)'),
  })
  .meta({ id: 'NotifyEntry', description: 'A notification target this runbook’s runs tell about events' });

export const RunbookSchema = z
  .strictObject({
    apiVersion: z.literal(API_VERSION),
    name: RunbookName,
    description: z.string().min(1),
    inputs: z.record(VariableName, InputSpec).optional(),
    steps: z.array(Step).min(1),
    outputs: z.record(VariableName, OutputSpec).optional(),
    onFailure: OnFailure.optional().describe(
      'What a failed step does, unless the step says (default rollback)',
    ),
    holdTimeout: Duration.optional().describe(
      'How long a held run waits for an operator before it rolls back on its own (default 24h)',
    ),
    notify: z
      .array(NotifyEntry)
      .min(1)
      .optional()
      .describe(
        'Notification targets (defined in the worker configuration) that hear about this runbook’s runs',
      ),
  })
  .meta({
    id: 'Runbook',
    title: 'tideline runbook',
    description: 'A durable, declarative runbook for tideline',
  });

export type Runbook = z.infer<typeof RunbookSchema>;
export type Step = z.infer<typeof Step>;
export type CallStep = z.infer<typeof CallStep>;
export type WaitStep = z.infer<typeof WaitStep>;
export type SleepStep = z.infer<typeof SleepStep>;
export type ApproveStep = z.infer<typeof ApproveStep>;
export type AssertStep = z.infer<typeof AssertStep>;
export type ParallelStep = z.infer<typeof ParallelStep>;
export type ParallelBranch = z.infer<typeof ParallelBranch>;
export type ForeachStep = z.infer<typeof ForeachStep>;
export type RunbookStep = z.infer<typeof RunbookStep>;
export type FailStep = z.infer<typeof FailStep>;
export type WatchStep = z.infer<typeof WatchStep>;
