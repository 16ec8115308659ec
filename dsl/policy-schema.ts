// The worker configuration's governance section: calendars (windows in which changes may happen,
// freezes in which they may not) and policy rules over each run and step, written in CEL. Also
// the context the rules read, as a schema: its TypeScript type and the CEL types the rules are
// checked against (policy-cel.ts) both come from it. Structure only; the CEL and the recurrence
// rules are checked when the section is compiled (policies.ts, calendars.ts).
import { z } from 'zod';
import { DURATION_EXAMPLES, isDuration, parseDuration } from './durations';
import type { JsonValue } from './expressions';
import { ISO_TIME_EXAMPLES, isTimeZone, parseIsoTime } from './zoned-time';

/** Policy and calendar names: they appear in decisions, messages and `policy list`. */
export const POLICY_NAME_PATTERN = /^[a-z][a-z0-9-]{0,62}$/;
const NAME_RULE = 'must be lowercase letters, digits and -, starting with a letter (at most 63)';

/** The longest occurrence a calendar may have; it also bounds how far back a search looks. */
export const MAX_OCCURRENCE_MS = 366 * 86_400_000;

export const PolicyName = z.string().regex(POLICY_NAME_PATTERN, NAME_RULE);
export const CalendarName = z.string().regex(POLICY_NAME_PATTERN, NAME_RULE);

/** A group of the worker's `approvals.groups`, by its plain name (runbooks write `group:NAME`). */
export const PolicyGroupName = z
  .string()
  .refine((name) => !name.startsWith('group:'), {
    message: 'write the group name without `group:` (e.g. dba)',
    abort: true,
  })
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/, 'must be a group name (letters, digits, . _ @ -)');

/** Signed approvals a rule asks for: how many members of which group. */
export const PolicyApprovals = z.strictObject({
  group: PolicyGroupName,
  count: z.number().int().min(1).max(20),
});
export type PolicyApprovals = z.infer<typeof PolicyApprovals>;

const OccurrenceDuration = z
  .string()
  .refine(isDuration, { message: `must be a duration such as ${DURATION_EXAMPLES}`, abort: true })
  .refine((text) => parseDuration(text) > 0, 'must be longer than 0')
  .refine((text) => parseDuration(text) <= MAX_OCCURRENCE_MS, 'must be at most 366d');

const IsoTimeText = z
  .string()
  .refine((text) => parseIsoTime(text) !== undefined, `must be an ISO time such as ${ISO_TIME_EXAMPLES}`);

const LocalTimeText = z
  .string()
  .refine(
    (text) => parseIsoTime(text)?.kind === 'local',
    'must be a local date-time without offset (read in the calendar timezone), e.g. 2025-01-06T09:00',
  );

/**
 * A calendar: recurring occurrences (`rrule` lines, RFC 5545 without DTSTART, each lasting
 * `duration`, optionally anchored at `start`), one absolute period `from`–`until`, or the events
 * of an iCalendar file (`ics`). A `window`
 * lets changes happen only inside its occurrences; a `freeze` lets none happen inside them.
 */
export const CalendarSpec = z
  .strictObject({
    kind: z.enum(['window', 'freeze']),
    description: z.string().max(500).optional(),
    timezone: z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin or UTC'),
    rrule: z.array(z.string().min(1).max(500)).min(1).max(20).optional(),
    duration: OccurrenceDuration.optional(),
    /** Local date-time the recurrence counts from: needed for INTERVAL and unpinned rules. */
    start: LocalTimeText.optional(),
    from: IsoTimeText.optional(),
    until: IsoTimeText.optional(),
    /** An iCalendar file (.ics), relative to the file that names it: its events are the occurrences. */
    ics: z.string().min(1).max(1000).optional(),
  })
  .superRefine((spec, ctx) => {
    const recurring = spec.rrule !== undefined;
    const absolute = spec.from !== undefined || spec.until !== undefined;
    const ics = spec.ics !== undefined;
    if ([recurring, absolute, ics].filter(Boolean).length > 1)
      ctx.addIssue({
        code: 'custom',
        message: 'give one of: rrule with duration, from and until, or ics',
      });
    else if (!recurring && !absolute && !ics)
      ctx.addIssue({
        code: 'custom',
        message: 'give rrule with duration, from and until, or ics (a .ics file)',
      });
    if (recurring && spec.duration === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['duration'],
        message: 'is needed with rrule: how long each occurrence lasts',
      });
    if (!recurring && spec.duration !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['duration'],
        message: 'belongs to rrule; an absolute period ends at until',
      });
    if (!recurring && spec.start !== undefined)
      ctx.addIssue({ code: 'custom', path: ['start'], message: 'belongs to rrule' });
    if (absolute && spec.from === undefined)
      ctx.addIssue({ code: 'custom', path: ['from'], message: 'is needed with until' });
    if (absolute && spec.until === undefined)
      ctx.addIssue({ code: 'custom', path: ['until'], message: 'is needed with from' });
  });
export type CalendarSpec = z.infer<typeof CalendarSpec>;

/** A CEL condition over the policy context (PolicyContextSchema, plus `now`). */
const CelCondition = z.string().trim().min(1, 'must be a CEL condition such as "true"').max(4000);

const ruleFields = {
  name: PolicyName,
  description: z.string().max(500).optional(),
  /** When the rule applies; CEL over the policy context. */
  when: CelCondition,
  /** The rule does not apply when this holds (an exemption); CEL. */
  unless: CelCondition.optional(),
  /**
   * Where the rule is evaluated: at run `start` (step and target are null), before each step
   * (`steps`), or `both`. Default: `steps` when it reads step or target; `both` for a window
   * rule that reads neither; `start` otherwise. A `both` rule that reads step tests
   * `step == null` first: reading a field of null fails closed (the rule applies).
   */
  at: z.enum(['start', 'steps', 'both']).optional(),
  message: z.string().min(1).max(500).optional(),
};

export const DenyRule = z.strictObject({ ...ruleFields, effect: z.literal('deny') });
export const WarnRule = z.strictObject({ ...ruleFields, effect: z.literal('warn') });
export const ApprovalRule = z.strictObject({
  ...ruleFields,
  effect: z.literal('require-approval'),
  approvals: PolicyApprovals,
});
export const WindowRule = z.strictObject({
  ...ruleFields,
  effect: z.literal('window'),
  calendar: CalendarName,
  /** Outside the calendar's open times: `wait` until it opens, or `refuse` the change. */
  outside: z.enum(['wait', 'refuse']),
  /** Signed approvals that let a change through while the calendar is closed. */
  override: PolicyApprovals.optional(),
});

export type WindowRule = z.infer<typeof WindowRule>;

export const PolicyRule = z.discriminatedUnion('effect', [DenyRule, WarnRule, ApprovalRule, WindowRule]);
export type PolicyRule = z.infer<typeof PolicyRule>;
export type PolicyEffect = PolicyRule['effect'];
export type PolicyAt = NonNullable<PolicyRule['at']>;

export const GovernanceSection = z
  .strictObject({
    calendars: z.record(CalendarName, CalendarSpec).optional(),
    policies: z.array(PolicyRule).max(500).optional(),
  })
  .superRefine((section, ctx) => {
    const calendars = Object.keys(section.calendars ?? {});
    const seen = new Map<string, number>();
    (section.policies ?? []).forEach((rule, index) => {
      const first = seen.get(rule.name);
      if (first !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['policies', index, 'name'],
          message: `\`${rule.name}\` is already the name of policies[${first}]; names must be unique`,
        });
      else seen.set(rule.name, index);
      if (rule.effect === 'window' && !calendars.includes(rule.calendar))
        ctx.addIssue({
          code: 'custom',
          path: ['policies', index, 'calendar'],
          message:
            calendars.length === 0
              ? `\`${rule.calendar}\` is not a calendar: no calendars are defined`
              : `\`${rule.calendar}\` is not a calendar; calendars: ${calendars.join(', ')}`,
        });
    });
  });
export type GovernanceSection = z.infer<typeof GovernanceSection>;

const JsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.null(),
    z.boolean(),
    z.number(),
    z.string(),
    z.array(JsonValueSchema),
    z.record(z.string(), JsonValueSchema),
  ]),
);

/**
 * What rules read, besides `now` (a CEL timestamp of the evaluation time). `step` is null at run
 * start; `target` is the resource the step changes as read from the API just before, null when
 * unknown (a create, or no read). An unverified starter has the name it claimed and `verified`
 * false.
 */
export const PolicyContextSchema = z.strictObject({
  runbook: z.strictObject({ name: z.string(), hash: z.string() }),
  starter: z.strictObject({ name: z.string(), verified: z.boolean(), groups: z.array(z.string()) }),
  inputs: z.record(z.string(), JsonValueSchema),
  step: z
    .strictObject({ key: z.string(), action: z.string(), with: z.record(z.string(), JsonValueSchema) })
    .nullable(),
  target: z
    .strictObject({
      type: z.string(),
      id: z.string(),
      name: z.string().nullable(),
      environment: z.string().nullable(),
      status: z.string().nullable(),
      region: z.string().nullable(),
      cpu_millis: z.number().int().nullable(),
      memory_gbs: z.number().int().nullable(),
    })
    .nullable(),
});
export type PolicyContext = z.infer<typeof PolicyContextSchema>;

/** `policies[2].when`, `calendars.business-hours.rrule[0]`: where a problem is, as written. */
export function governancePath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else text += text === '' ? String(part) : `.${String(part)}`;
  }
  return text === '' ? '(governance)' : text;
}

/** A zod issue of the section as one line: where, then what is wrong. */
export function governanceIssueText(issue: z.core.$ZodIssue): string {
  const where = governancePath(issue.path);
  if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message))
    return `${where}: is missing (${issue.expected} expected)`;
  if (issue.code === 'unrecognized_keys')
    return `${where}: unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `\`${key}\``).join(', ')}`;
  if (issue.code === 'invalid_union' && 'discriminator' in issue)
    return `${where}: must be one of deny, warn, require-approval, window`;
  return `${where}: ${issue.message}`;
}
