// A foreach's `targets`: the services of a project chosen by name pattern, environment, status,
// region and fork/replica relationship, instead of a hand-written CEL filter over `service.list`.
// The schema (authors' form) and the semantic checks live here; targets-filter.ts turns a selector
// into the list call and the CEL filter the interpreter already runs.
import { z } from 'zod';
import { EnvironmentTag, ServiceStatus } from '../cloud/models';
import { globProblem } from './glob';
import { TemplateString } from './schema-primitives';
import type { ProblemPath, RunbookProblem } from './problems';
import { closestName } from './suggest';
import { hasTemplate, isWholeTemplate } from './templates';

/** One value or several (any of them selects); each may be a `${{ … }}` giving one value. */
const oneOrMore = (value: z.ZodString, what: string) =>
  z.union([value, z.array(value).min(1)]).describe(`${what}; a list selects any of them`);

/** How a listed service relates to others: `forked_from` absent, a fork, or a standby replica. */
export const TargetRole = z.enum(['primary', 'fork', 'replica']);
export type TargetRole = z.infer<typeof TargetRole>;

export const TargetsSelector = z
  .strictObject({
    project_id: z.string().min(1).describe('The project whose services are listed; may use ${{ … }}'),
    name: oneOrMore(
      z.string(),
      'A name pattern: `*` matches any run of characters, `?` one character, `\\*` `\\?` `\\\\` match `*` `?` `\\`, the rest itself (whole name); a value from ${{ … }} inside it matches literally',
    ).optional(),
    environment: oneOrMore(
      z.string(),
      `The environment tag (${EnvironmentTag.options.join(', ')}) or a \${{ … }} giving one`,
    ).optional(),
    status: oneOrMore(
      z.string(),
      'The service status (READY, PAUSED, …) or a ${{ … }} giving one',
    ).optional(),
    region: oneOrMore(z.string().min(1), 'The region code, e.g. us-east-1').optional(),
    forkOf: z
      .string()
      .min(1)
      .optional()
      .describe('Only forks of this service (its service_id); may use ${{ … }}'),
    replicaOf: z
      .string()
      .min(1)
      .optional()
      .describe('Only read replicas (standbys) of this service (its service_id); may use ${{ … }}'),
    role: z
      .union([TargetRole, z.array(TargetRole).min(1)])
      .optional()
      .describe(
        'primary: not forked from another service; fork: forked from one; replica: a read replica (standby) listed as a service. A list selects any of them',
      ),
    hasReadReplicas: z
      .union([z.boolean(), TemplateString])
      .optional()
      .describe(
        'true: only services with a read replica set; false: only services without one; or a ${{ … }} giving true or false',
      ),
  })
  .meta({
    id: 'TargetsSelector',
    description:
      'Which services of a project the foreach runs over; every field but project_id is optional and narrows the selection (all must hold)',
  });

export const ForeachTargets = z.strictObject({ targets: TargetsSelector }).meta({
  id: 'ForeachTargets',
  description: 'Run over the services a selector picks (listed when the step starts)',
});

export type TargetsSelector = z.infer<typeof TargetsSelector>;
export type ForeachTargets = z.infer<typeof ForeachTargets>;

/** The fields a selector may have, in the order they are documented. */
export const TARGETS_FIELDS = Object.keys(TargetsSelector.shape) as (keyof TargetsSelector)[];

/** The id of the list step a targets foreach gets: `-` keeps it apart from CEL identifiers. */
export function targetsListStepId(foreachId: string): string {
  return `${foreachId}-targets`;
}

/** A one-or-more field as a list. */
export const asList = <T extends string>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

function valuePath(path: ProblemPath, field: string, value: string | string[], index: number): ProblemPath {
  return Array.isArray(value) ? [...path, field, index] : [...path, field];
}

/** Values of a closed set: each is one of them or a whole `${{ … }}`. */
function closedValueProblems(
  value: string | string[] | undefined,
  allowed: readonly string[],
  field: string,
  path: ProblemPath,
): RunbookProblem[] {
  if (value === undefined) return [];
  return asList(value).flatMap((one, index) => {
    if (allowed.includes(one) || isWholeTemplate(one)) return [];
    const near = closestName(String(one).toUpperCase(), allowed);
    return [
      {
        rule: 'foreach-targets' as const,
        path: valuePath(path, field, value, index),
        message: hasTemplate(one)
          ? `\`${field}\` mixes text and \${{ … }}; write one of ${allowed.join(', ')} or one \${{ … }}`
          : `\`${one}\` is not a ${field === 'status' ? 'service status' : 'environment tag'}`,
        hint: near !== undefined ? `did you mean ${near}?` : `one of ${allowed.join(', ')}`,
      },
    ];
  });
}

/**
 * The semantic problems of a selector the schema accepted (`path` is the selector's path): bad name
 * patterns, statuses or environments that do not exist, and relationships that contradict.
 */
export function targetsProblems(selector: TargetsSelector, path: ProblemPath): RunbookProblem[] {
  const problems: RunbookProblem[] = [];
  if (selector.name !== undefined) {
    const names = selector.name;
    asList(names).forEach((pattern, index) => {
      const problem = globProblem(pattern);
      if (problem !== undefined) {
        problems.push({
          rule: 'foreach-targets',
          path: valuePath(path, 'name', names, index),
          message: `bad name pattern: ${problem}`,
          hint: "`*` matches any run of characters and `?` one, e.g. name: 'dev-*'",
        });
      }
    });
  }
  problems.push(
    ...closedValueProblems(selector.environment, EnvironmentTag.options, 'environment', path),
    ...closedValueProblems(selector.status, ServiceStatus.options, 'status', path),
  );
  const roles = selector.role === undefined ? undefined : asList(selector.role);
  const relation = (field: 'forkOf' | 'replicaOf', role: TargetRole) => {
    if (selector[field] !== undefined && roles !== undefined && !roles.includes(role)) {
      problems.push({
        rule: 'foreach-targets',
        path: [...path, 'role'],
        message: `\`${field}\` selects services of role ${role}, but \`role\` leaves ${role} out`,
        hint: `remove \`role\`, or add ${role} to it`,
      });
    }
  };
  relation('forkOf', 'fork');
  relation('replicaOf', 'replica');
  if (selector.forkOf !== undefined && selector.replicaOf !== undefined) {
    problems.push({
      rule: 'foreach-targets',
      path: [...path, 'replicaOf'],
      message:
        'a service is either a fork or a read replica: `forkOf` and `replicaOf` together select nothing',
      hint: 'use one of them (two foreach steps select both)',
    });
  }
  return problems;
}
