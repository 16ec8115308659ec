// Checks the local cloud's answers against the vendor's API document with the project's overlays
// (vendor-openapi.ts): the status must be one the operation documents, and the body must match that
// status's schema, read closed (an object field neither document has is a problem too). A problem
// names the JSON path and what the document wants there, never the value that was sent.
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { ActionName } from '../../cloud/operations';
import { formatPath } from '../../cloud/response';
import { toJsonSchema, type OasSchema } from './openapi-schema';
import { REQUIRE_TOOLS_VARIABLE, toolsRequired } from './tool-requirements';
import {
  dialectDocument,
  responseFor,
  vendorDocument,
  type DocumentDialect,
  type DialectDocument,
} from './vendor-openapi';

export interface ObservedAnswer {
  action: ActionName;
  status: number;
  /** Parsed JSON; undefined when the answer had no body. */
  body: unknown;
  dialect: DocumentDialect;
}

/** Compiles closed JSON Schemas of one document, each once. */
export class AnswerConformance {
  private readonly ajv = new Ajv({ allErrors: true, strict: true });
  private readonly compiled = new Map<OasSchema, ValidateFunction>();

  constructor(readonly document: DialectDocument) {
    addFormats(this.ajv, ['date-time', 'email']);
  }

  /** What is wrong with the answer: `path: problem` lines, empty when it matches the document. */
  check(answer: Omit<ObservedAnswer, 'dialect'>): string[] {
    const op = this.document.forAction(answer.action);
    if (!op) return ['(operation): the document has no operation at this method and path'];
    const entry = responseFor(op, answer.status);
    if (!entry) return [`(status): HTTP ${answer.status} is not a status the document lists for ${op.id}`];
    const { shape } = entry;
    if (shape.kind === 'anything') return [];
    if (shape.kind === 'nothing') {
      return answer.body === undefined ? [] : ['(body): a body where the document has none'];
    }
    if (answer.body === undefined) return ['(body): no body where the document has JSON'];
    const validate = this.validator(shape.schema);
    if (validate(answer.body)) return [];
    return describeErrors(validate.errors ?? []);
  }

  private validator(schema: OasSchema): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(toJsonSchema(schema, { closed: true }));
      this.compiled.set(schema, validate);
    }
    return validate;
  }
}

/** `/resources/0/spec` → `resources[0].spec` (cloud/response.ts's notation). */
function jsonPointerPath(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** Ajv's errors as `path: problem`, from the schema's side only (ajv quotes no data without `verbose`). */
export function describeErrors(errors: readonly ErrorObject[]): string[] {
  // A nullable member that is neither null nor valid fails both branches of its anyOf: keep the
  // non-null branch's errors, which say what is wrong.
  const useful = errors.filter(
    (error) => error.keyword !== 'anyOf' && !(error.keyword === 'type' && error.params.type === 'null'),
  );
  const lines = (useful.length > 0 ? useful : errors).map((error) => {
    const path = jsonPointerPath(error.instancePath);
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case 'required':
        return `${formatPath([...path, String(params.missingProperty)])}: missing; the document requires it`;
      case 'additionalProperties':
        return `${formatPath([...path, String(params.additionalProperty)])}: a field the document does not have`;
      case 'type':
        return `${formatPath(path)}: must be ${String(params.type).replace(',', ' or ')}`;
      case 'enum':
        return `${formatPath(path)}: must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
      case 'format':
        return `${formatPath(path)}: must be a ${String(params.format)} string`;
      default:
        return `${formatPath(path)}: ${error.message ?? error.keyword}`;
    }
  });
  return [...new Set(lines)];
}

const checkers = new Map<DocumentDialect, AnswerConformance>();

export function answerConformance(dialect: DocumentDialect): AnswerConformance {
  let checker = checkers.get(dialect);
  if (!checker) {
    checker = new AnswerConformance(dialectDocument(dialect));
    checkers.set(dialect, checker);
  }
  return checker;
}

/**
 * Collects the problems of every answer it observes (an observer should record, not throw) and
 * reports them once: `service.get 200 (seed): resources[0].spec.cpu_millis: must be integer`.
 */
export class AnswerConformanceRecorder {
  private readonly problems = new Map<string, number>();
  private checked = 0;

  observe = (answer: ObservedAnswer): void => {
    this.checked += 1;
    try {
      for (const problem of answerConformance(answer.dialect).check(answer)) {
        const line = `${answer.action} ${answer.status} (${answer.dialect}): ${problem}`;
        this.problems.set(line, (this.problems.get(line) ?? 0) + 1);
      }
    } catch (error) {
      const line = `${answer.action} ${answer.status} (${answer.dialect}): the check failed: ${(error as Error).message}`;
      this.problems.set(line, (this.problems.get(line) ?? 0) + 1);
    }
  };

  get answersChecked(): number {
    return this.checked;
  }

  violations(): string[] {
    return [...this.problems].map(([line, count]) => (count > 1 ? `${line} (×${count})` : line));
  }

  /** A failure message, or undefined when every answer matched. */
  report(): string | undefined {
    const lines = this.violations();
    if (lines.length === 0) return undefined;
    return [
      `The local cloud answered ${lines.length} way(s) that break the vendor's API document with the overlays of`,
      'test/api-conformance/ (operation, status, dialect, JSON path; fix the local cloud or record the difference):',
      ...lines.map((line) => `  ${line}`),
    ].join('\n');
  }
}

let unavailableNoted = false;

/**
 * A recorder for startTestCloud. Without the vendor document (no Go to fetch it) the check is off
 * and a note says why, once per process; with TIDELINE_REQUIRE_TOOLS=1 (CI, whose setup fetches
 * it) that throws instead.
 */
export function answerCheckForTests(): AnswerConformanceRecorder | undefined {
  const vendor = vendorDocument();
  if (vendor.available) return new AnswerConformanceRecorder();
  if (toolsRequired()) {
    throw new Error(`${vendor.reason} (${REQUIRE_TOOLS_VARIABLE}=1: a missing tool fails the run)`);
  }
  if (!unavailableNoted) {
    unavailableNoted = true;
    console.warn(
      `the local cloud's answers are not checked against the vendor's API document: ${vendor.reason}`,
    );
  }
  return undefined;
}
