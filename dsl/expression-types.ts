// The CEL environment the validator type-checks a runbook's expressions in: `inputs` typed from
// their declarations, `steps.<id>.output` from the action's response schema (or the child's
// outputs, a foreach's entries), `result` from the waited action's answer, loop variables from the
// list's element type. Built on the evaluation environment (expressions.ts), so the checker knows
// exactly the functions evaluation has. Validation only: never loaded by the workflow.
import type { Environment } from '@marcbachmann/cel-js';
import type { ActionName } from '../cloud/operations';
import { ACTION_NAMES, operations } from '../cloud/operations';
import type { CelObjectType, CelTypeTable } from './cel-types';
import { celTypeName, celTypeOf, inputCelType } from './cel-types';
import type { RunbookDefinition } from './definition';
import type { JsonValue } from './expressions';
import { celEnvironment } from './expressions';
import type { Runbook, RunbookStep, Step } from './schema';
import { writtenKind } from './step-kinds/runtime-table';
import { languageOf } from './step-kinds/table';
import { parseTemplate } from './templates';

/** Values of these types may be compared with null: absent optional inputs and fields read null. */
const NULLABLE_BUILTINS = ['string', 'int', 'double', 'bool', 'list<dyn>', 'map'];

function registerTypes(env: Environment, table: CelTypeTable): void {
  // Nested object types were added after their parent; register them first.
  for (const type of [...table.values()].reverse()) {
    env.registerType(type.name, { fields: type.fields });
    env.registerOperator(`${type.name} == null`, () => false);
    // At run time objects are maps, so `'field' in x` works and is how runbooks test for a field.
    env.registerOperator(`string in ${type.name}`, () => false);
  }
}

/** Every action's answer as a CEL type, once per process. */
let actionTypes: { env: Environment; table: CelTypeTable; byAction: Map<ActionName, string> } | undefined;

function withActionTypes(): NonNullable<typeof actionTypes> {
  if (actionTypes) return actionTypes;
  const table: CelTypeTable = new Map();
  const byAction = new Map<ActionName, string>();
  for (const action of ACTION_NAMES) {
    const response = operations[action].response;
    byAction.set(action, response ? celTypeOf(response, celTypeName(action), table) : 'dyn');
  }
  const env = celEnvironment.clone();
  for (const type of NULLABLE_BUILTINS) env.registerOperator(`${type} == null`, () => false);
  registerTypes(env, table);
  actionTypes = { env, table, byAction };
  return actionTypes;
}

/** The CEL type of the answers of an action (`dyn` when it answers without a body). */
export function actionCelType(action: ActionName): string {
  return withActionTypes().byAction.get(action) ?? 'dyn';
}

/**
 * An environment with variables typed as action answers (`actionCelType`, `elementType`): for
 * expressions outside a runbook, e.g. a state file's expectations over listed services.
 */
export function answerVariablesEnvironment(variables: Record<string, string>): Environment {
  const env = withActionTypes().env.clone();
  for (const [name, type] of Object.entries(variables)) env.registerVariable(name, type);
  return env;
}

/** The element type of a list type, `dyn` for anything else. */
export function elementType(type: string): string {
  const match = /^list<(.*)>$/.exec(type);
  return match?.[1] ?? 'dyn';
}

/**
 * What a child's output value is known to be from its declaration: text (literal or with `${{ }}`
 * inside) is a string, true/false a bool, `${{ inputs.x }}` the input's type; anything else
 * (numbers, which are int or double at run time, other expressions, lists, maps) is dyn.
 */
function childOutputType(child: RunbookDefinition, value: JsonValue): string {
  if (typeof value === 'boolean') return 'bool';
  if (typeof value !== 'string') return 'dyn';
  let parsed: ReturnType<typeof parseTemplate>;
  try {
    parsed = parseTemplate(value);
  } catch {
    return 'dyn'; // reported in the child
  }
  if (!parsed.whole) return 'string';
  const [part] = parsed.parts;
  const input =
    part?.kind === 'expression' ? /^inputs\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(part.expression) : null;
  const spec = input?.[1] === undefined ? undefined : child.inputs[input[1]];
  return spec ? inputCelType(spec.type) : 'dyn';
}

export interface TypedVariables {
  /** The action whose answer `result` holds, inside a wait's conditions. */
  result?: ActionName;
  /** Loop variables in scope and the type of their items. */
  loops: Record<string, string>;
}

/** The types of one runbook's inputs and step outputs; checks expressions against them. */
export class RunbookTypes {
  private readonly env: Environment;
  private readonly table: CelTypeTable;
  private readonly scoped = new Map<string, Environment>();

  constructor(
    runbook: Runbook,
    steps: ReadonlyMap<string, { step: Step }>,
    childRunbook: (step: RunbookStep) => RunbookDefinition | undefined,
  ) {
    const base = withActionTypes();
    this.table = new Map(base.table);
    const own: CelTypeTable = new Map();
    const object = (name: string, fields: Record<string, string>): string => {
      const type: CelObjectType = { name, fields };
      own.set(name, type);
      this.table.set(name, type);
      return name;
    };
    const inputs = Object.entries(runbook.inputs ?? {}).map(([name, spec]) => [
      name,
      inputCelType(spec.type),
    ]);
    object('tideline.inputs', Object.fromEntries(inputs));
    const stepFields: Record<string, string> = {};
    // One step type per output type: registering a type per step made 20,000 steps quadratic.
    const stepTypes = new Map<string, string>();
    let index = 0;
    for (const [id, { step }] of steps) {
      index += 1;
      const output = this.outputType(step, childRunbook, (fields) =>
        object(`tideline.child${index}`, fields),
      );
      let stepType = stepTypes.get(output);
      if (stepType === undefined) {
        stepType = object(`tideline.step${stepTypes.size + 1}`, { output, status: 'string' });
        stepTypes.set(output, stepType);
      }
      stepFields[id] = stepType;
    }
    // `tideline.steps` goes last: its fields name the step types.
    this.env = base.env.clone();
    registerTypes(this.env, new Map([...own].reverse()));
    this.env.registerType('tideline.steps', { fields: stepFields });
    this.table.set('tideline.steps', { name: 'tideline.steps', fields: stepFields });
  }

  private outputType(
    step: Step,
    childRunbook: (step: RunbookStep) => RunbookDefinition | undefined,
    childType: (fields: Record<string, string>) => string,
  ): string {
    const output = languageOf(writtenKind(step)).output;
    if ('answerOf' in output) return actionCelType(output.answerOf(step));
    if ('cel' in output) return output.cel;
    const child = childRunbook(output.childOutputs(step));
    if (!child) return 'dyn';
    return childType(
      Object.fromEntries(
        Object.entries(child.outputs).map(([name, spec]) => [name, childOutputType(child, spec.value)]),
      ),
    );
  }

  /** The fields of an object type, for hints. */
  fieldsOf(type: string): string[] {
    return Object.keys(this.table.get(type)?.fields ?? {});
  }

  /** The environment for one scope: `inputs`, `steps`, `result` and loop variables declared. */
  environment(variables: TypedVariables): Environment {
    const key = JSON.stringify([variables.result ?? '', variables.loops]);
    const cached = this.scoped.get(key);
    if (cached) return cached;
    const env = this.env.clone();
    env.registerVariable('inputs', 'tideline.inputs');
    env.registerVariable('steps', 'tideline.steps');
    if (variables.result !== undefined) env.registerVariable('result', actionCelType(variables.result));
    for (const [name, type] of Object.entries(variables.loops)) {
      if (name !== 'inputs' && name !== 'steps' && name !== 'result') env.registerVariable(name, type);
    }
    this.scoped.set(key, env);
    return env;
  }
}
