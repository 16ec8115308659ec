// `${{ cloud.… }}` in a test case: the ids of what the case's starting cloud holds, which exist only
// once the case runs. `cloud.project_id`, `cloud.services.NAME.id` and `cloud.vpcs.NAME.id` are
// known; a string that is one reference becomes its value, references inside text are replaced.
// Expectations may also read the case's own inputs, `${{ inputs.NAME }}` (e.g. a password).

/** The ids a case's starting cloud got, by the names the test file gave. */
export interface CloudIds {
  projectId: string;
  services: ReadonlyMap<string, string>;
  vpcs: ReadonlyMap<string, string>;
}

const REFERENCE = /\$\{\{\s*([^}]*?)\s*\}\}/g;
const SHAPE = /^cloud\.(?:(project_id)|(services|vpcs)\.([a-z][a-z0-9-]*)\.id)$/;

export interface ReferenceProblem {
  /** Where in the value (keys and indices). */
  path: (string | number)[];
  message: string;
}

const INPUT = /^inputs\.([A-Za-z_][A-Za-z0-9_]*)$/;

/** `inputs`: the inputs the case gives, where `${{ inputs.NAME }}` may be read (expectations). */
export type Names = {
  services: ReadonlySet<string>;
  vpcs: ReadonlySet<string>;
  inputs?: ReadonlySet<string>;
};

function checkOne(expression: string, names: Names): string | undefined {
  const input = INPUT.exec(expression)?.[1];
  if (input !== undefined && names.inputs !== undefined)
    return names.inputs.has(input) ? undefined : `\${{ ${expression} }}: this case gives no input "${input}"`;
  const match = SHAPE.exec(expression);
  if (match === null)
    return `unknown reference \${{ ${expression} }}: use cloud.project_id, cloud.services.NAME.id or cloud.vpcs.NAME.id`;
  const kind = match[2] as 'services' | 'vpcs' | undefined;
  const name = match[3];
  if (kind !== undefined && name !== undefined && !names[kind].has(name))
    return `\${{ ${expression} }}: this case's cloud has no ${kind === 'services' ? 'service' : 'VPC'} named "${name}"`;
  return undefined;
}

function walk(
  value: unknown,
  path: (string | number)[],
  visit: (text: string, path: (string | number)[]) => void,
) {
  if (typeof value === 'string') visit(value, path);
  else if (Array.isArray(value)) value.forEach((item, index) => walk(item, [...path, index], visit));
  else if (value !== null && typeof value === 'object')
    for (const [key, inner] of Object.entries(value)) walk(inner, [...path, key], visit);
}

/** Every reference in `value` that names nothing this case's cloud will hold. */
export function referenceProblems(value: unknown, names: Names): ReferenceProblem[] {
  const problems: ReferenceProblem[] = [];
  walk(value, [], (text, path) => {
    for (const match of text.matchAll(REFERENCE)) {
      const message = checkOne(match[1] ?? '', names);
      if (message !== undefined) problems.push({ path, message });
    }
  });
  return problems;
}

function lookUp(expression: string, ids: CloudIds, inputs: Readonly<Record<string, unknown>>): unknown {
  const input = INPUT.exec(expression)?.[1];
  if (input !== undefined && input in inputs) return inputs[input];
  const match = SHAPE.exec(expression);
  if (match?.[1] !== undefined) return ids.projectId;
  const table = match?.[2] === 'services' ? ids.services : ids.vpcs;
  const id = match?.[3] !== undefined ? table.get(match[3]) : undefined;
  // The loader refused unknown references, so this is a fault of the runner.
  if (id === undefined) throw new Error(`reference \${{ ${expression} }} has no value`);
  return id;
}

/** `value` with every reference replaced by the id (or, given `inputs`, the input value) it names. */
export function resolveReferences<T>(
  value: T,
  ids: CloudIds,
  inputs: Readonly<Record<string, unknown>> = {},
): T {
  if (typeof value === 'string') {
    const whole = /^\$\{\{\s*([^}]*?)\s*\}\}$/.exec(value);
    if (whole !== null) return lookUp(whole[1] ?? '', ids, inputs) as T;
    return value.replace(REFERENCE, (_text, expression: string) =>
      String(lookUp(expression, ids, inputs)),
    ) as T;
  }
  if (Array.isArray(value)) return value.map((item: unknown) => resolveReferences(item, ids, inputs)) as T;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, resolveReferences(inner, ids, inputs)]),
    ) as T;
  return value;
}

/** A stand-in id for every name, so inputs can be checked before the cloud exists. */
export function placeholderIds(names: Names): CloudIds {
  const stand = (set: ReadonlySet<string>) => new Map([...set].map((name) => [name, `${name}-id`]));
  return { projectId: 'project-id', services: stand(names.services), vpcs: stand(names.vpcs) };
}
