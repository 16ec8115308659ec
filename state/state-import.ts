// `tideline state import`: a state file describing the services that exist now — observe-only,
// a starting point a team edits into rules. For each selected service (by name) one rule per fact
// it holds today: its environment tag, region, HA replica count, whether it has a connection
// pooler, the VPC it is attached to, and its size. Every rule holds for the services it was made
// from, so `tideline drift` on the unchanged fleet is clean. Only these fields are read: nothing
// secret (passwords, endpoints' credentials) reaches the file. Services sharing a name share one
// rule per fact, kept only where they all agree.
import { stringify } from 'yaml';
import type { JsonValue } from '../dsl/expressions';
import { celString } from '../dsl/glob';
import { escapeGlob } from '../dsl/glob';
import { selectServices } from './drift-check';
import type { StateFile, StateSelector } from './state-schema';

type Json = { [key: string]: JsonValue };

function object(value: JsonValue | undefined): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

function text(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function count(value: JsonValue | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** One fact about a service: the rule's suffix and its expectation. */
interface Fact {
  kind: string;
  expect: string;
}

function has(path: string): string {
  const parts = path.split('.');
  return parts.map((_, index) => `has(service.${parts.slice(0, index + 1).join('.')})`).join(' && ');
}

function lacks(path: string): string {
  const parts = path.split('.');
  return parts.map((_, index) => `!has(service.${parts.slice(0, index + 1).join('.')})`).join(' || ');
}

/** The facts a service holds now, in a fixed order. */
export function serviceFacts(service: JsonValue): Fact[] {
  const s = object(service) ?? {};
  const facts: Fact[] = [];
  const environment = text(object(s.metadata)?.environment);
  facts.push({
    kind: 'environment',
    expect:
      environment === undefined
        ? lacks('metadata.environment')
        : `${has('metadata.environment')} && service.metadata.environment == ${celString(environment)}`,
  });
  const region = text(s.region_code);
  if (region !== undefined)
    facts.push({
      kind: 'region',
      expect: `${has('region_code')} && service.region_code == ${celString(region)}`,
    });
  const replicas = count(object(s.ha_replicas)?.replica_count) ?? 0;
  facts.push({
    kind: 'ha',
    expect:
      replicas === 0
        ? `${lacks('ha_replicas.replica_count')} || service.ha_replicas.replica_count == 0`
        : `${has('ha_replicas.replica_count')} && service.ha_replicas.replica_count == ${replicas}`,
  });
  const pooler = object(object(s.connection_pooler)?.endpoint) !== undefined;
  facts.push({
    kind: 'pooler',
    expect: pooler ? has('connection_pooler.endpoint') : `!(${has('connection_pooler.endpoint')})`,
  });
  const vpc = text(object(s.vpc_endpoint)?.vpc_id);
  facts.push({
    kind: 'vpc',
    expect:
      vpc === undefined
        ? lacks('vpc_endpoint.vpc_id')
        : `${has('vpc_endpoint.vpc_id')} && service.vpc_endpoint.vpc_id == ${celString(vpc)}`,
  });
  const resources = Array.isArray(s.resources) ? s.resources : [];
  const spec = resources
    .map((resource) => object(object(resource)?.spec))
    .find((found) => found !== undefined);
  const cpu = count(spec?.cpu_millis);
  const memory = count(spec?.memory_gbs);
  if (cpu !== undefined && memory !== undefined)
    facts.push({
      kind: 'size',
      expect: `${has('resources')} && service.resources.exists(r, has(r.spec) && has(r.spec.cpu_millis) && has(r.spec.memory_gbs) && r.spec.cpu_millis == ${cpu} && r.spec.memory_gbs == ${memory})`,
    });
  return facts;
}

/** A rule name (lower-case letters, digits, -; 63 at most) from a service name and a fact. */
function ruleName(serviceName: string, kind: string): string {
  let base = serviceName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (!/^[a-z]/.test(base)) base = `svc-${base}`;
  return `${base.slice(0, 62 - kind.length).replace(/-+$/, '')}-${kind}`;
}

export interface ImportOptions {
  projectId: string;
  select: StateSelector;
  /** The state's `name`. */
  name: string;
}

/** The state file of what the selected services hold now. */
export function importState(services: JsonValue[], options: ImportOptions): StateFile {
  const byName = new Map<string, JsonValue[]>();
  for (const service of selectServices(options.select, options.projectId, services)) {
    const name = text(object(service)?.name);
    if (name === undefined) continue;
    byName.set(name, [...(byName.get(name) ?? []), service]);
  }
  const rules: StateFile['rules'] = [];
  const used = new Set<string>();
  for (const [serviceName, group] of [...byName].sort(([a], [b]) => a.localeCompare(b))) {
    const [first, ...rest] = group.map(serviceFacts);
    for (const fact of first ?? []) {
      if (
        !rest.every((facts) =>
          facts.some((other) => other.kind === fact.kind && other.expect === fact.expect),
        )
      )
        continue;
      let name = ruleName(serviceName, fact.kind);
      for (let n = 2; used.has(name); n += 1) name = `${ruleName(serviceName, `${fact.kind}${n}`)}`;
      used.add(name);
      rules.push({
        name,
        // The name exactly: a `*` or `?` in it would select other services too.
        select: { name: escapeGlob(serviceName) },
        expect: fact.expect,
        severity: 'error',
      });
    }
  }
  return {
    apiVersion: 'tideline/v1',
    kind: 'State',
    name: options.name,
    description: `What ${byName.size} service(s) of project ${options.projectId} held when imported (observe-only; edit into rules)`,
    project_id: options.projectId,
    rules,
  };
}

/** The state file as YAML, one rule per block, long expectations on one line. */
export function stateFileText(state: StateFile): string {
  return stringify(state, { lineWidth: 0 });
}
