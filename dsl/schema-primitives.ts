// The building blocks of the runbook schema: names, durations, expressions, retry, inputs, outputs.
// Rules are written once here; the JSON Schema for editors is generated from them.
import { z } from 'zod';
import { DURATION_EXAMPLES, DURATION_SOURCE } from './durations';

export const API_VERSION = 'tideline/v1';

export const RUNBOOK_NAME_PATTERN = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
export const STEP_ID_PATTERN = /^[a-z][a-z0-9_-]*$/;
/** Input, output and loop variable names are CEL identifiers, so `inputs.vpc_id` reads naturally. */
export const VARIABLE_NAME_PATTERN = /^[a-z_][a-z0-9_]*$/;

/** A percentage from 0% to 100% with at most two decimals (a foreach's `maxErrors`). */
export const MAX_ERRORS_PERCENT_PATTERN = /^(?:100(?:\.0{1,2})?|\d{1,2}(?:\.\d{1,2})?)%$/;

const TEMPLATE_SOURCE = '\\$\\{\\{[\\s\\S]*\\}\\}';

export const RunbookName = z
  .string()
  .regex(RUNBOOK_NAME_PATTERN, 'must be kebab-case: lowercase letters and digits joined by single hyphens')
  .max(63);

export const StepId = z
  .string()
  .regex(STEP_ID_PATTERN, 'must start with a lowercase letter and use only a-z, 0-9, _ and -')
  .max(63)
  .describe('Unique across the whole runbook; other steps read this step as steps.<id>.output');

export const VariableName = z
  .string()
  .regex(VARIABLE_NAME_PATTERN, 'must be a lowercase identifier: a-z, 0-9 and _, not starting with a digit');

export const Duration = z
  .string()
  .regex(new RegExp(`^${DURATION_SOURCE}$`), `must be a duration such as ${DURATION_EXAMPLES}`)
  .describe(`A duration such as ${DURATION_EXAMPLES}`);

/** A duration, or a `${{ … }}` that gives one (a duration string or milliseconds) at run time. */
export const DurationOrTemplate = z
  .string()
  .regex(
    new RegExp(`^(?:${DURATION_SOURCE}|${TEMPLATE_SOURCE})$`),
    `must be a duration such as ${DURATION_EXAMPLES}, or a \${{ … }} expression`,
  )
  .describe(`A duration such as ${DURATION_EXAMPLES}, or a \${{ … }} expression giving one`);

/** A string that is exactly one `${{ … }}`, for fields that are otherwise numbers. */
export const TemplateString = z
  .string()
  .regex(new RegExp(`^${TEMPLATE_SOURCE}$`), 'must be a ${{ … }} expression')
  .describe('A ${{ … }} expression');

/** A CEL expression, bare or wrapped in `${{ … }}`. */
export const Expression = z.string().min(1).describe('A CEL expression, bare or as ${{ … }}');

export const Condition = z
  .union([z.string().min(1), z.boolean()])
  .describe('A CEL condition (bare or as ${{ … }}) or true/false');

/** Any JSON value; strings may hold `${{ … }}` templates. */
export const JsonData = z.json().meta({ id: 'JsonValue' });

export const WithInput = z
  .record(z.string(), JsonData)
  .describe('The action input: path parameters and body/query fields in one map; values may use ${{ … }}');

export const Retry = z
  .strictObject({
    attempts: z.int().min(1).max(100).describe('Attempts in total, the first included'),
    initialInterval: Duration.optional().describe('Pause before the second attempt (default 1s)'),
    backoff: z
      .number()
      .min(1)
      .max(10)
      .optional()
      .describe('Each pause is the previous one times this (default 2)'),
    maxInterval: Duration.optional().describe('Longest pause between attempts (default 1m)'),
  })
  .describe('How often to try the step before it counts as failed');

export const INPUT_TYPES = [
  'string',
  'integer',
  'number',
  'boolean',
  'enum',
  'duration',
  'list',
  'map',
] as const;
export const InputType = z.enum(INPUT_TYPES);
export type InputType = z.infer<typeof InputType>;

const Bound = z.union([z.number(), Duration]);

export const InputSpec = z
  .strictObject({
    type: InputType,
    description: z.string().optional(),
    default: JsonData.optional().describe('Used when the input is not given; makes the input optional'),
    required: z.boolean().optional().describe('Default: required unless a default is given'),
    secret: z.boolean().optional().describe('Never printed, logged or stored in plain text'),
    pattern: z.string().optional().describe('A regular expression a string input must match'),
    min: Bound.optional().describe(
      'Lowest value (integer, number, duration) or shortest length (string, list)',
    ),
    max: Bound.optional().describe(
      'Highest value (integer, number, duration) or longest length (string, list)',
    ),
    values: z.array(z.string()).min(1).optional().describe('The allowed values of an enum input'),
  })
  .describe('A typed runbook input');

export const OutputSpec = z.union([
  z.string().describe('A value, usually "${{ steps.<id>.output.<field> }}"'),
  z.strictObject({
    value: JsonData,
    secret: z.boolean().optional().describe('Kept encrypted in history and masked when displayed'),
    description: z.string().optional(),
  }),
]);

export type Retry = z.infer<typeof Retry>;
export type InputSpec = z.infer<typeof InputSpec>;
export type OutputSpec = z.infer<typeof OutputSpec>;
