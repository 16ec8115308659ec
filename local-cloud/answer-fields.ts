// Fields of an operation's answer, named by a dotted path such as `resources.0.spec.cpu_millis`:
// whether the catalogue's answer schema has such a field, and an answer with that field left out
// (the omitField fault), or with it null. A list level takes an index (`0`) or `*` (every element).
import { z } from 'zod';

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LIST_STEP = /^(?:[0-9]+|\*)$/;

export const AnswerFieldPath = z
  .string()
  .min(1)
  .max(200)
  .refine((path) => path.split('.').every((step) => FIELD_NAME.test(step) || LIST_STEP.test(step)), {
    message:
      'field must be field names joined by dots, with an index or * at a list (e.g. resources.0.spec.cpu_millis)',
  });

/** The schema under optional, nullable and preprocessing wrappers (answerObject is a preprocess). */
function unwrapped(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    if (current instanceof z.ZodOptional || current instanceof z.ZodNullable) {
      current = current.unwrap() as z.ZodType;
    } else if (current instanceof z.ZodPipe) {
      current = current.out as z.ZodType;
    } else {
      return current;
    }
  }
}

/**
 * Why `path` names no field that an answer read by `response` may leave out, or undefined when it
 * names one: every step must exist in the schema, and the last must be a field the client reads as
 * optional, so that the answer without it is still one the client accepts.
 */
export function answerFieldProblem(response: z.ZodType | undefined, path: string): string | undefined {
  if (response === undefined) return 'it answers without a body';
  const steps = path.split('.');
  let schema = response;
  let reached = 'the answer';
  for (const [index, step] of steps.entries()) {
    const node = unwrapped(schema);
    if (node instanceof z.ZodArray) {
      if (!LIST_STEP.test(step)) return `${reached} is a list: write an index or * where "${step}" is`;
      schema = node.element as z.ZodType;
    } else if (node instanceof z.ZodObject) {
      const shape = node.shape as Record<string, z.ZodType>;
      const field = Object.hasOwn(shape, step) ? shape[step] : undefined;
      if (field === undefined) {
        return `${reached} has no field "${step}"; it has ${Object.keys(shape).join(', ')}`;
      }
      if (index === steps.length - 1 && !field.safeParse(undefined).success) {
        return `${reached} must carry "${step}" (the client refuses an answer without it); name an optional field`;
      }
      schema = field;
    } else {
      return `${reached} has no named fields; end the path before "${step}"`;
    }
    reached = index === 0 ? step : `${reached}.${step}`;
  }
  return LIST_STEP.test(steps.at(-1) ?? '')
    ? `${path} names an element of a list, not a field; end the path with a field name`
    : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function omit(value: unknown, steps: readonly string[], asNull: boolean): unknown {
  const [step, ...rest] = steps;
  if (step === undefined) return value;
  if (Array.isArray(value)) {
    if (step === '*') return value.map((element) => omit(element, rest, asNull));
    const at = Number(step);
    return value.map((element: unknown, index) => (index === at ? omit(element, rest, asNull) : element));
  }
  if (!isRecord(value) || !Object.hasOwn(value, step)) return value;
  if (rest.length > 0) return { ...value, [step]: omit(value[step], rest, asNull) };
  if (asNull) return { ...value, [step]: null };
  const { [step]: _left, ...kept } = value;
  return kept;
}

/**
 * A copy of `body` without the field at `path`, or with it null when `asNull` (what the API sends
 * for a field its Go type holds without omitempty, e.g. a nil slice); unchanged where the body
 * does not carry the field.
 */
export function withoutAnswerField(body: unknown, path: string, asNull = false): unknown {
  return omit(body, path.split('.'), asNull);
}
