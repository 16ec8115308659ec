// A targets selector (dsl/targets.ts) as what the interpreter already runs: a `service.list` call
// step before the foreach, and the foreach's items as a CEL filter over that call's output. So a
// targets foreach needs no workflow code of its own, and a plan can filter a listing with exactly
// the expression a run evaluates.
//
// Values from `${{ … }}` are computed once, before the filter, in one `cel.bind` map: inside the
// filter each is a field read, so the filter stays linear in the number of services (the cost
// bound of expression-limits.ts counts a concatenation inside a loop as quadratic).
import { assertNever } from '../cloud/assert-never';
import type { CallStepDefinition, TargetsDefinition } from './definition';
import { celString, globTest } from './glob';
import { asList, targetsListStepId, type TargetRole, type TargetsSelector } from './targets';
import { hasTemplate, parseTemplate } from './templates';

/** The loop variable of the generated filter and the name of the computed values. */
const TARGET = 'tideline_target';
const VALUES = 'tideline_selection';

/** CEL pieces of a value: a literal, or templates (whole: its value; embedded: as text). */
function valueCel(value: string): string {
  if (!hasTemplate(value)) return celString(value);
  const { parts, whole } = parseTemplate(value);
  if (whole && parts[0]?.kind === 'expression') return `(${parts[0].expression})`;
  return parts
    .map((part) => (part.kind === 'text' ? celString(part.text) : `string(${part.expression})`))
    .join(' + ');
}

/** Collects the computed values; a literal stays inline. */
class Values {
  readonly entries: [string, string][] = [];

  operand(cel: string, isLiteral: boolean, key: string): string {
    if (isLiteral) return cel;
    this.entries.push([key, cel]);
    return `${VALUES}.${key}`;
  }

  value(value: string, key: string): string {
    return this.operand(valueCel(value), !hasTemplate(value), key);
  }
}

const anyOf = (tests: string[]) => (tests.length === 1 ? tests[0]! : `(${tests.join(' || ')})`);

const t = (path: string) => `${TARGET}.${path}`;
const FORKED = `has(${t('forked_from')}) && has(${t('forked_from.service_id')})`;
const STANDBY = `has(${t('forked_from.is_standby')}) && ${t('forked_from.is_standby')} == true`;
const HAS_REPLICAS = `has(${t('read_replica_sets')}) && type(${t('read_replica_sets')}) == list && size(${t('read_replica_sets')}) > 0`;

function roleTest(role: TargetRole): string {
  switch (role) {
    case 'primary':
      return `!(${FORKED})`;
    case 'fork':
      return `(${FORKED} && !(${STANDBY}))`;
    case 'replica':
      return `(${FORKED} && ${STANDBY})`;
    default:
      return assertNever(role, 'target role');
  }
}

/** The conditions one listed service must meet, in the order of the selector's fields. */
function conditions(selector: TargetsSelector, values: Values): string[] {
  const out: string[] = [];
  const names = asList(selector.name);
  if (names.length > 0) {
    const tests = names.map((pattern, index) => {
      const glob = globTest(pattern);
      const operand = values.operand(glob.operand, !hasTemplate(pattern), `name_${index}`);
      return glob.test(t('name'), operand);
    });
    out.push(`has(${t('name')}) && ${anyOf(tests)}`);
  }
  const oneOf = (field: string, guard: string, path: string, list: string[]) => {
    if (list.length === 0) return;
    const tests = list.map((value, index) => `${t(path)} == ${values.value(value, `${field}_${index}`)}`);
    out.push(`${guard} && ${anyOf(tests)}`);
  };
  oneOf(
    'environment',
    `has(${t('metadata')}) && has(${t('metadata.environment')})`,
    'metadata.environment',
    asList(selector.environment),
  );
  oneOf('status', `has(${t('status')})`, 'status', asList(selector.status));
  oneOf('region', `has(${t('region_code')})`, 'region_code', asList(selector.region));
  const related = (field: 'forkOf' | 'replicaOf', standby: string) => {
    const parent = selector[field];
    if (parent === undefined) return;
    out.push(`${FORKED} && ${standby} && ${t('forked_from.service_id')} == ${values.value(parent, field)}`);
  };
  related('forkOf', `!(${STANDBY})`);
  related('replicaOf', `(${STANDBY})`);
  const roles = asList(selector.role);
  if (roles.length > 0) out.push(anyOf(roles.map(roleTest)));
  const replicas = selector.hasReadReplicas;
  if (typeof replicas === 'boolean') out.push(replicas ? HAS_REPLICAS : `!(${HAS_REPLICAS})`);
  else if (replicas !== undefined)
    out.push(`(${HAS_REPLICAS}) == ${values.value(replicas, 'hasReadReplicas')}`);
  return out;
}

/** The foreach's items: the listed services the selector picks, in the order listed. */
export function targetsItems(selector: TargetsSelector, listStepId: string): string {
  const values = new Values();
  const list = `steps[${celString(listStepId)}].output`;
  const tests = conditions(selector, values);
  const filter = tests.length === 0 ? list : `${list}.filter(${TARGET}, ${tests.join(' && ')})`;
  if (values.entries.length === 0) return filter;
  const map = values.entries.map(([key, cel]) => `${celString(key)}: ${cel}`).join(', ');
  return `cel.bind(${VALUES}, {${map}}, ${filter})`;
}

/** The selector as the definition keeps it (for plans and status): one-or-more fields as lists. */
export function targetsDefinition(selector: TargetsSelector, foreachId: string): TargetsDefinition {
  const lists = <T extends string>(value: T | T[] | undefined) =>
    value === undefined ? undefined : asList(value);
  const out: TargetsDefinition = {
    listStepId: targetsListStepId(foreachId),
    project_id: selector.project_id,
  };
  const name = lists(selector.name);
  const environment = lists(selector.environment);
  const status = lists(selector.status);
  const region = lists(selector.region);
  const role = lists(selector.role);
  if (name) out.name = name;
  if (environment) out.environment = environment;
  if (status) out.status = status;
  if (region) out.region = region;
  if (selector.forkOf !== undefined) out.forkOf = selector.forkOf;
  if (selector.replicaOf !== undefined) out.replicaOf = selector.replicaOf;
  if (role) out.role = role;
  if (selector.hasReadReplicas !== undefined) out.hasReadReplicas = selector.hasReadReplicas;
  return out;
}

/** The call step that lists the project's services for a targets foreach (placed right before it). */
export function targetsListStep(
  targets: TargetsDefinition,
  foreach: Pick<CallStepDefinition, 'id' | 'if' | 'continueOnError' | 'onFailure'>,
): CallStepDefinition {
  return {
    kind: 'call',
    id: targets.listStepId,
    name: `List the services ${foreach.id} selects from`,
    ...(foreach.if !== undefined && { if: foreach.if }),
    compensate: [],
    continueOnError: foreach.continueOnError,
    ...(foreach.onFailure !== undefined && { onFailure: foreach.onFailure }),
    action: 'service.list',
    actionKind: 'read',
    with: { project_id: targets.project_id },
    adopt: false,
  };
}
