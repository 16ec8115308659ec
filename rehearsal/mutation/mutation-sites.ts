// Where a written runbook step can be made wrong, by kind: one entry per step kind, each listing
// the mutations its own fields allow (a compensation's call swapped for a sibling operation, a
// literal in `with` changed, an input reference swapped for the next input of the same type, an
// approval's default flipped, a wait's condition weakened). Dropping a step and negating its `if`
// apply to every kind and are added by the caller. Each mutation is a list of variants, tried in
// order: the first the runbook loader accepts is the mutant (a mutant the validator refuses is a
// runbook no one could ship).
import type { z } from 'zod';
import { ACTION_NAMES, operations, type ActionName } from '../../cloud/operations';
import type { InputDefinition } from '../../dsl/definition';
import type { ProblemPath } from '../../dsl/problems';
import type { StepKind } from '../../dsl/schema';
import type { WrittenStep } from '../../dsl/step-kinds/facets';
import { conditionExpression, hasTemplate } from '../../dsl/templates';

export type MutationOperator =
  'drop-step' | 'swap-call' | 'change-literal' | 'swap-input' | 'negate-if' | 'flip-default' | 'weaken-wait';

/** One change to the runbook document: a value set at a path, or the node at a path removed. */
export type DocumentEdit = { path: ProblemPath; value: unknown } | { path: ProblemPath; remove: true };

export interface MutationVariant {
  /** What the mutated field becomes, as the mutant's id ends (absent: nothing to add). */
  to?: string;
  edits: DocumentEdit[];
}

export interface MutationSite {
  operator: MutationOperator;
  stepId: string;
  /** The field mutated, relative to the step (`with.environment`), when the step has several. */
  field?: string;
  /** Which reference was swapped out (swap-input). */
  from?: string;
  variants: MutationVariant[];
}

export interface SiteContext {
  /** The step's path in the document. */
  path: ProblemPath;
  /** It is a compensation step. */
  compensating: boolean;
  inputs: Record<string, InputDefinition>;
}

type SitesOf<K extends StepKind> = (step: WrittenStep<K>, context: SiteContext) => MutationSite[];

const NO_SITES = (): MutationSite[] => [];

/** The leaves of a `with` value, each with its path below `with`. */
function leaves(
  value: unknown,
  path: (string | number)[] = [],
): { path: (string | number)[]; value: unknown }[] {
  if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item !== 'object'))
    return [{ path, value }];
  if (Array.isArray(value)) return value.flatMap((item, index) => leaves(item, [...path, index]));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => leaves(item, [...path, key]));
  return [{ path, value }];
}

/** The enum values a field of an action's request allows, when it is an enum. */
function enumValues(action: ActionName | undefined, field: string | number | undefined): string[] {
  if (action === undefined || typeof field !== 'string') return [];
  const { body, query } = operations[action] as { body?: z.ZodType; query?: z.ZodType };
  for (const schema of [body, query]) {
    const shape = (schema as { shape?: Record<string, z.ZodType> } | undefined)?.shape;
    let fieldSchema = shape?.[field] as { options?: unknown; unwrap?: () => unknown } | undefined;
    while (fieldSchema !== undefined && fieldSchema.options === undefined && fieldSchema.unwrap !== undefined)
      fieldSchema = fieldSchema.unwrap() as typeof fieldSchema;
    if (Array.isArray(fieldSchema?.options)) return fieldSchema.options.filter((o) => typeof o === 'string');
  }
  return [];
}

/** Other values a literal could plausibly have been written as, likeliest first. */
function literalAlternatives(value: unknown, enumOptions: readonly string[]): unknown[] {
  if (typeof value === 'boolean') return [!value];
  if (typeof value === 'number') return [value + 1, value - 1, value * 2];
  if (Array.isArray(value)) return [value.slice(0, -1), value.slice(1)];
  if (typeof value === 'string') {
    const others = enumOptions.filter((option) => option !== value);
    if (/^\d+$/.test(value)) others.push(String(Number(value) * 2), String(Number(value) + 1));
    return [...others, `${value}x`];
  }
  return [];
}

const pathText = (path: (string | number)[]) =>
  path
    .map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index > 0 ? '.' : ''}${part}`))
    .join('');

/** `with` of a call, wait, watch or child runbook: literals changed and input references swapped. */
function withSites(
  stepId: string,
  given: Record<string, unknown> | undefined,
  context: SiteContext,
  action: ActionName | undefined,
): MutationSite[] {
  const sites: MutationSite[] = [];
  for (const leaf of leaves(given ?? {})) {
    const field = `with.${pathText(leaf.path)}`;
    const at = [...context.path, 'with', ...leaf.path];
    if (typeof leaf.value === 'string' && hasTemplate(leaf.value)) {
      const text = leaf.value;
      const names = Object.keys(context.inputs);
      for (const [index, name] of names.entries()) {
        const reference = new RegExp(`\\binputs\\.${name}\\b`, 'g');
        if (!reference.test(text)) continue;
        // The next input of the same type, in declaration order: one plausible slip per reference.
        const type = context.inputs[name]?.type;
        const other = [...names.slice(index + 1), ...names.slice(0, index)].find(
          (candidate) => context.inputs[candidate]?.type === type,
        );
        if (other === undefined) continue;
        sites.push({
          operator: 'swap-input',
          stepId,
          field,
          from: `inputs.${name}`,
          variants: [
            {
              to: `inputs.${other}`,
              edits: [{ path: at, value: text.replace(reference, `inputs.${other}`) }],
            },
          ],
        });
      }
      continue;
    }
    const alternatives = literalAlternatives(leaf.value, enumValues(action, leaf.path[0]));
    if (alternatives.length === 0) continue;
    sites.push({
      operator: 'change-literal',
      stepId,
      field,
      variants: alternatives.map((value) => ({ to: JSON.stringify(value), edits: [{ path: at, value }] })),
    });
  }
  return sites;
}

/** A compensation's call swapped for each other change to the same resource. */
function siblingCalls(stepId: string, action: ActionName, context: SiteContext): MutationSite[] {
  if (!context.compensating) return [];
  const { resource } = operations[action];
  return ACTION_NAMES.filter(
    (other) =>
      other !== action && operations[other].resource === resource && operations[other].kind !== 'read',
  ).map((other) => ({
    operator: 'swap-call' as const,
    stepId,
    variants: [{ to: other, edits: [{ path: [...context.path, 'call'], value: other }] }],
  }));
}

export const KIND_MUTATION_SITES: { [K in StepKind]: SitesOf<K> } = {
  call: (step, context) => [
    ...siblingCalls(step.id, step.call as ActionName, context),
    ...withSites(step.id, step.with, context, step.call as ActionName),
  ],
  wait: (step, context) => {
    const weakened: MutationSite[] =
      step.untilDeleted === true
        ? [
            {
              operator: 'weaken-wait',
              stepId: step.id,
              variants: [
                {
                  to: 'true',
                  edits: [
                    { path: [...context.path, 'untilDeleted'], remove: true },
                    { path: [...context.path, 'until'], value: 'true' },
                  ],
                },
              ],
            },
          ]
        : step.until !== undefined && conditionExpression(step.until) !== 'true'
          ? [
              {
                operator: 'weaken-wait',
                stepId: step.id,
                variants: [{ to: 'true', edits: [{ path: [...context.path, 'until'], value: 'true' }] }],
              },
            ]
          : [];
    return [...weakened, ...withSites(step.id, step.with, context, step.wait as ActionName)];
  },
  watch: (step, context) => withSites(step.id, step.with, context, step.watch as ActionName),
  runbook: (step, context) => withSites(step.id, step.with, context, undefined),
  approve: (step, context) => {
    if (step.timeout === undefined) return [];
    const flipped = (step.default ?? 'reject') === 'reject' ? 'approve' : 'reject';
    return [
      {
        operator: 'flip-default',
        stepId: step.id,
        variants: [{ to: flipped, edits: [{ path: [...context.path, 'default'], value: flipped }] }],
      },
    ];
  },
  sleep: NO_SITES,
  assert: NO_SITES,
  parallel: NO_SITES,
  foreach: NO_SITES,
  fail: NO_SITES,
};

/** The mutations of any step: dropped, and its `if` negated. */
export function commonSites(
  step: { id: string; if?: string | boolean | undefined },
  path: ProblemPath,
): MutationSite[] {
  const sites: MutationSite[] = [
    { operator: 'drop-step', stepId: step.id, variants: [{ edits: [{ path, remove: true }] }] },
  ];
  if (step.if !== undefined)
    sites.push({
      operator: 'negate-if',
      stepId: step.id,
      variants: [{ edits: [{ path: [...path, 'if'], value: `\${{ !(${conditionExpression(step.if)}) }}` }] }],
    });
  return sites;
}

/** A mutation's id: stable across runs, since it names the mutation rather than its place in a list. */
export function mutantId(site: MutationSite, variant: MutationVariant): string {
  const parts = [site.operator, site.stepId, site.field, site.from].filter((part) => part !== undefined);
  return parts.join(':') + (variant.to !== undefined ? `=${variant.to}` : '');
}

/** The kind's own mutations of a step of any kind (the table's entries take the step as any kind). */
export function kindSites(kind: StepKind): SitesOf<StepKind> {
  return KIND_MUTATION_SITES[kind] as unknown as SitesOf<StepKind>;
}
