// Turning an HTTP answer into an operation's result: the expected success status and a body that
// matches the operation's response schema, or a CloudApiError with a stable code. Messages name
// the action and what was wrong, never the raw body (a service answer may hold a password).
import type { z } from 'zod';
import { CloudApiError, codeForStatus, parseRetryAfter } from './errors';
import type { HttpAnswer } from './http';
import type { OperationDef } from './operations';
import { collectSecretValues, redact } from './redact';

/** Longest API error message we quote; the rest is cut so one bad answer cannot flood the logs. */
const MAX_QUOTED_MESSAGE = 500;

export interface AnswerContext {
  action: string;
  def: OperationDef;
  /** Values to scrub from any message: the secret key, its Basic token, request passwords. */
  secrets: readonly string[];
  /**
   * `false`: a successful answer's JSON is returned as it arrived, not read with the response
   * schema; the caller reads what it needs and checks what it keeps (readAnswerPart).
   */
  checkBody?: boolean | undefined;
  /**
   * With `checkBody: false` on a list: strings each element the caller keeps must hold. An answer
   * that provably holds none of some value (answerLacksOneOf) is not parsed: it reads as [].
   */
  elementsHolding?: readonly string[] | undefined;
}

/**
 * Whether the text of a JSON array answer proves that one of `values` equals none of its strings:
 * with no escape sequence in the text every string stands there literally, between quotes, so a
 * value whose JSON form is absent is in no element. An escape anywhere, or a body that is not an
 * array, proves nothing. The text is scanned for escapes once, whatever the number of values.
 */
export function answerLacksOneOf(text: string, values: readonly string[]): boolean {
  if (values.length === 0 || text.includes('\\')) return false;
  const body = text.trim();
  if (!body.startsWith('[') || !body.endsWith(']')) return false;
  return values.some((value) => !body.includes(JSON.stringify(value)));
}

/** The validated result of a successful answer, or throws a CloudApiError. */
export function interpretAnswer(answer: HttpAnswer, context: AnswerContext): unknown {
  const { def } = context;
  if (answer.status === def.successStatus || def.alsoAccepted.includes(answer.status as never))
    return successBody(answer, context);
  if (answer.status >= 200 && answer.status < 300) {
    throw invalidResponse(
      context,
      `answered HTTP ${answer.status}, expected ${def.successStatus}`,
      answer.status,
    );
  }
  throw errorFromAnswer(answer, context);
}

function successBody(answer: HttpAnswer, context: AnswerContext): unknown {
  const schema = context.def.response;
  // Operations without a response body return undefined whatever the server sent.
  if (schema === undefined) return undefined;
  if (answer.text.trim() === '') {
    throw invalidResponse(context, 'answered with an empty body, expected JSON', answer.status);
  }
  // A long list the caller filters by value need not be parsed when the text shows no match.
  if (context.checkBody === false && answerLacksOneOf(answer.text, context.elementsHolding ?? [])) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.text);
  } catch {
    // The parser's own message quotes the body, so it is neither used nor kept as a cause.
    throw invalidResponse(context, 'answered with a body that is not valid JSON', answer.status);
  }
  if (context.checkBody === false) return parsed;
  return readAnswerPart(schema as z.ZodType, parsed, { ...context, status: answer.status });
}

/**
 * `value` (an answer, or part of one that arrived unchecked) read with `schema`, or a
 * CLOUD_API_INVALID_RESPONSE naming what breaks it.
 */
export function readAnswerPart(
  schema: z.ZodType,
  value: unknown,
  context: { action: string; secrets: readonly string[]; status: number },
): unknown {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const secrets = [...context.secrets, ...collectSecretValues(value)];
  const problems = result.error.issues
    .slice(0, 5)
    .map((issue) => `${formatPath(issue.path)}: ${issue.message}`)
    .join('; ');
  const more = result.error.issues.length > 5 ? ` (and ${result.error.issues.length - 5} more)` : '';
  throw invalidResponse(
    { ...context, secrets },
    `answered with a body that breaks the response schema: ${problems}${more}`,
    context.status,
  );
}

function errorFromAnswer(answer: HttpAnswer, context: AnswerContext): CloudApiError {
  const { status } = answer;
  const code = codeForStatus(status);
  const apiError = readApiError(answer.text);
  const retryAfterMs = parseRetryAfter(headerValue(answer.headers['retry-after']));
  const label = apiError.code !== undefined ? `HTTP ${status} ${apiError.code}` : `HTTP ${status}`;
  const detail =
    apiError.message !== undefined ? quote(apiError.message) : 'the answer carried no error message';
  // The vendor's client shows `details` as the actionable part of an error ("bearer auth is not
  // enabled on this server" for a bare UNAUTHORIZED), so it goes into the message after a dash.
  const actionable = apiError.details !== undefined ? ` — ${quote(apiError.details)}` : '';
  const wait = retryAfterMs !== undefined ? ` (retry after ${retryAfterMs} ms)` : '';
  return new CloudApiError({
    code,
    action: context.action,
    status,
    apiCode: apiError.code !== undefined ? redact(apiError.code, context.secrets) : undefined,
    apiDetails: apiError.details !== undefined ? redact(quote(apiError.details), context.secrets) : undefined,
    retryAfterMs,
    message: redact(`${context.action} failed: ${label}: ${detail}${actionable}${wait}`, context.secrets),
  });
}

/** The API's `{code, message, details}` error body, as far as it is present and readable. */
function readApiError(text: string): { code?: string; message?: string; details?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  const { code, message, details } = parsed as { code?: unknown; message?: unknown; details?: unknown };
  return {
    code: typeof code === 'string' && code.length > 0 ? code.slice(0, 64) : undefined,
    message: typeof message === 'string' && message.length > 0 ? message : undefined,
    details: typeof details === 'string' && details.trim().length > 0 ? details : undefined,
  };
}

function invalidResponse(
  context: { action: string; secrets: readonly string[] },
  what: string,
  status: number,
): CloudApiError {
  return new CloudApiError({
    code: 'CLOUD_API_INVALID_RESPONSE',
    action: context.action,
    status,
    message: redact(`${context.action}: the Cloud API ${what}`, context.secrets),
  });
}

function quote(message: string): string {
  return message.length > MAX_QUOTED_MESSAGE ? `${message.slice(0, MAX_QUOTED_MESSAGE)}…` : message;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** `resources[0].spec.cpu_millis`, or `(body)` for the top level. */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(body)';
  return path
    .map((part, index) =>
      typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`,
    )
    .join('');
}
