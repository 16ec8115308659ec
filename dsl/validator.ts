// The static validator: everything that can be known before a run starts. It reports all problems
// at once — schema problems and, for the parts the schema accepted, every semantic rule — each with
// the document path it concerns (the loader turns paths into file:line:column).
import type { RunbookDefinition } from './definition';
import type { ProblemPath, RunbookProblem, SourcePosition } from './problems';
import { formatPath } from './problems';
import { RunbookSchema } from './schema';
import { salvageRunbook } from './salvage';
import type { Runbook, RunbookStep } from './schema';
import { schemaProblems } from './schema-issues';
import { placedList, walkSteps } from './step-tree';
import type { PlacedStep } from './step-tree';
import { ExpressionChecker } from './validator-expressions';
import { inputSpecProblems } from './validator-inputs';
import { secretLeakProblems } from './validator-secrets';
import { isDuration, parseDuration } from './durations';
import { languageOf } from './step-kinds/table';

export interface ValidationContext {
  /**
   * The checked definition of the child a `runbook` step runs; undefined when it could not be
   * loaded (the caller reports why). Called once per runbook step, with the step's path.
   */
  childRunbook?: (step: RunbookStep, path: ProblemPath) => RunbookDefinition | undefined;
  /** Where a path is in the source, so hints can point at another place (duplicate ids). */
  locate?: (path: ProblemPath) => SourcePosition | undefined;
}

export interface ValidationResult {
  /** The schema-checked runbook, when the schema accepted the whole document. */
  runbook?: Runbook;
  problems: RunbookProblem[];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Every `id` written under `steps`, parsed or not, so references to broken steps are not reported twice. */
function writtenIds(raw: unknown): Set<string> {
  const ids = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (isPlainObject(value)) {
      if (typeof value.id === 'string') ids.add(value.id);
      Object.values(value).forEach(walk);
    }
  };
  if (isPlainObject(raw)) walk(raw.steps);
  return ids;
}

function retryOrder(step: PlacedStep['step'], path: ProblemPath): RunbookProblem[] {
  const retry = step.retry;
  if (retry?.initialInterval === undefined || retry.maxInterval === undefined) return [];
  if (parseDuration(retry.initialInterval) <= parseDuration(retry.maxInterval)) return [];
  return [
    {
      rule: 'duration',
      path: [...path, 'retry', 'initialInterval'],
      message: '`initialInterval` is longer than `maxInterval`',
    },
  ];
}

/** The longest duration a runbook may write (10 years): longer is a typo, and beyond Temporal's timers. */
export const MAX_DURATION_MS = 3650 * 86_400_000;
/** The duration fields every step has (dsl/schema.ts `common`); a kind declares its own. */
export const COMMON_STEP_DURATIONS = ['timeout'] as const;
const RETRY_DURATIONS = ['initialInterval', 'maxInterval'] as const;

/** Literal durations over MAX_DURATION_MS (templated ones are resolved at run time). */
function durationLimits(fields: [unknown, ProblemPath][]): RunbookProblem[] {
  return fields.flatMap(([value, path]) =>
    typeof value === 'string' && isDuration(value) && parseDuration(value) > MAX_DURATION_MS
      ? [
          {
            rule: 'duration' as const,
            path,
            message: `\`${String(path[path.length - 1])}\` is longer than 3650d (10 years), the longest duration a runbook may give`,
            hint: 'check the number and the unit (ms, s, m, h, d)',
          },
        ]
      : [],
  );
}

/** Every duration field of a step: the common ones, its kind's declared ones, its retry's. */
function stepDurationLimits(
  step: PlacedStep['step'],
  kind: PlacedStep['kind'],
  path: ProblemPath,
): RunbookProblem[] {
  const record = step as Record<string, unknown>;
  const retry = (step.retry ?? {}) as Record<string, unknown>;
  return durationLimits([
    ...[...COMMON_STEP_DURATIONS, ...languageOf(kind).durations].map((name): [unknown, ProblemPath] => [
      record[name],
      [...path, name],
    ]),
    ...RETRY_DURATIONS.map((name): [unknown, ProblemPath] => [retry[name], [...path, 'retry', name]]),
  ]);
}

/** What a salvaged (partly rejected) document adds: ids to stay quiet about, original step paths. */
interface Salvage {
  unparsedIds: ReadonlySet<string>;
  stepPaths: ProblemPath[];
}

/** Semantic rules on a runbook the schema accepted (or on the accepted parts of one). */
export function validateRunbook(
  runbook: Runbook,
  context: ValidationContext = {},
  salvage?: Salvage,
): RunbookProblem[] {
  const unparsedIds = salvage?.unparsedIds ?? new Set<string>();
  const top = runbook.steps.map((step, index) => ({
    step,
    path: salvage?.stepPaths[index] ?? ['steps', index],
  }));
  const children = new Map<RunbookStep, RunbookDefinition | undefined>();
  const childRunbook = (step: RunbookStep) => children.get(step);
  const problems: RunbookProblem[] = [];
  const steps = new Map<string, PlacedStep>();
  const branches = new Map<string, ProblemPath>();
  const firstUse = new Map<string, ProblemPath>();
  const listSteps: { id: string; path: ProblemPath }[] = [];

  const claimId = (id: string, path: ProblemPath) => {
    const first = firstUse.get(id);
    if (first === undefined) {
      firstUse.set(id, path);
      return true;
    }
    const where = context.locate?.(first);
    const at = where ? `line ${where.line}, column ${where.column}` : formatPath(first);
    problems.push({
      rule: 'duplicate-id',
      path: [...path, 'id'],
      message: `id \`${id}\` is used more than once`,
      hint: `first used at ${at}; ids must be unique across the whole runbook`,
    });
    return false;
  };

  walkSteps(
    top,
    [],
    (placed) => {
      const { step, kind, path, frames } = placed;
      const language = languageOf(kind);
      if (claimId(step.id, path)) steps.set(step.id, placed);
      if (kind === 'runbook')
        children.set(step as RunbookStep, context.childRunbook?.(step as RunbookStep, path));
      problems.push(...language.inputProblems(step, path, childRunbook), ...retryOrder(step, path));
      problems.push(...stepDurationLimits(step, kind, path));
      if (step.compensate !== undefined && frames.some((f) => f.type === 'compensate')) {
        problems.push({
          rule: 'compensate-nested',
          path: [...path, 'compensate'],
          message: 'a compensation step cannot have its own `compensate`',
          hint: 'list the undo steps one after another instead',
        });
      }
      if (step.onFailure === 'hold' && frames.some((f) => f.type === 'compensate')) {
        problems.push({
          rule: 'on-failure',
          path: [...path, 'onFailure'],
          message: 'a compensation step cannot hold the run: compensation always runs to the end',
          hint: 'remove `onFailure` here',
        });
      }
      problems.push(...language.problems(step, path));
      listSteps.push(...language.generatedIds(step, path));
    },
    (branch) => {
      if (claimId(branch.id, branch.path)) branches.set(branch.id, branch.path);
    },
  );

  // A targets foreach's generated list step takes an id: no written step may have it.
  for (const { id, path } of listSteps) {
    if (firstUse.has(id)) {
      problems.push({
        rule: 'foreach-targets',
        path,
        message: `a foreach over \`targets\` lists the services in a step \`${id}\`, but a step of that id is written too`,
        hint: `rename the step \`${id}\``,
      });
    }
  }

  for (const [name, spec] of Object.entries(runbook.inputs ?? {}))
    problems.push(...inputSpecProblems(name, spec));
  problems.push(...durationLimits([[runbook.holdTimeout, ['holdTimeout']]]));

  const checker = new ExpressionChecker({
    runbook,
    top,
    steps,
    branchIds: new Set(branches.keys()),
    unparsedIds,
    childRunbook,
  });
  checker.run();
  problems.push(...checker.problems);
  problems.push(...secretLeakProblems({ runbook, steps, childRunbook }));
  return problems;
}

/** Schema and semantic rules on a parsed YAML/JSON document; all problems at once. */
export function validateRunbookDocument(raw: unknown, context: ValidationContext = {}): ValidationResult {
  const parsed = RunbookSchema.safeParse(raw);
  if (parsed.success) return { runbook: parsed.data, problems: validateRunbook(parsed.data, context) };
  const problems = schemaProblems(parsed.error.issues, raw);
  const partial = salvageRunbook(raw);
  if (partial) {
    const parsedIds = new Set<string>();
    walkSteps(placedList(partial.runbook.steps, ['steps']), [], ({ step }) => parsedIds.add(step.id));
    const unparsedIds = new Set([...writtenIds(raw)].filter((id) => !parsedIds.has(id)));
    problems.push(
      ...validateRunbook(partial.runbook, context, { unparsedIds, stepPaths: partial.stepPaths }),
    );
  }
  return { problems };
}
