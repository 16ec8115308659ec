// The per-operation facts of the catalogue (cloud/operations.ts) hold together: what they name
// exists in the catalogue and its schemas, and the modules that act on them (adoption, already-
// applied checks, locks, step records, fault rules, validation and log redaction) read the same facts.
import type { LogLevel, LogMetadata, Logger } from '@temporalio/common';
import { ADOPTION_FINDERS, isCreateAction } from '../../activities/create-or-adopt';
import { ALREADY_APPLIED } from '../../activities/already-applied';
import { assertNever } from '../../cloud/assert-never';
import { FAULT_OUTCOMES, type AlreadyApplied } from '../../cloud/operation-facts';
import { ACTION_NAMES, CREATE_ACTIONS, operations, type ActionName } from '../../cloud/operations';
import { RESOURCES, RESOURCE_NAMES, resourceOf } from '../../cloud/resources';
import { isSecretFieldName } from '../../cloud/secret-fields';
import { ACTION_CATALOGUE, checkOutputPath, isActionName, unwrapSchema } from '../../dsl/actions';
import { FaultRuleInput, OUTCOME_ACTIONS } from '../../local-cloud/fault-schema';
import { createRedactingLogger, isLoggedSecretField } from '../../worker/redacting-logger';
import { z } from 'zod';

const pathParamsOf = (action: ActionName): readonly string[] => operations[action].pathParams;
const inputFieldsOf = (action: ActionName) => ACTION_CATALOGUE[action].fields.map((f) => f.name);
const isSubset = (part: readonly string[], whole: readonly string[]) => part.every((p) => whole.includes(p));

/** The read an already-applied check makes; none for a change that is not checked. */
function readOfCheck(fact: AlreadyApplied): ActionName | undefined {
  switch (fact.check) {
    case 'gone':
      return fact.read;
    case 'service':
      return 'service.get';
    case 'vpc':
      return 'vpc.get';
    case 'replicaSet':
      return 'replicaSet.list';
    case 'none':
      return undefined;
    default:
      return assertNever(fact, 'already-applied check');
  }
}

/** The top-level fields of an answer object (none for a list or an answer without a body). */
function answerFields(action: ActionName): string[] {
  const response = operations[action].response as z.ZodType | undefined;
  if (response === undefined) return [];
  const inner = unwrapSchema(response, 'out');
  return inner instanceof z.ZodObject ? Object.keys(inner.shape as object) : [];
}

describe('every operation', () => {
  test.each(ACTION_NAMES)('%s names its own resource and states its secrets exactly', (action) => {
    const def = operations[action];
    expect(resourceOf(action)).toBe(def.resource);
    expect([...def.secretFields.input].sort()).toEqual(
      inputFieldsOf(action).filter(isSecretFieldName).sort(),
    );
    expect([...def.secretFields.output].sort()).toEqual(
      answerFields(action).filter(isSecretFieldName).sort(),
    );
  });

  test('the runbook validator reads the catalogue’s secret fields, and the logger redacts each', () => {
    const named = new Set<string>();
    for (const action of ACTION_NAMES) {
      const def = operations[action];
      expect(ACTION_CATALOGUE[action].secretInputFields).toEqual([...def.secretFields.input]);
      expect(ACTION_CATALOGUE[action].secretOutputFields).toEqual([...def.secretFields.output]);
      for (const field of [...def.secretFields.input, ...def.secretFields.output]) named.add(field);
    }
    expect([...named].sort()).toEqual(['initial_password', 'password']);

    const lines: LogMetadata[] = [];
    const inner: Logger = {
      log: (_level: LogLevel, _message: string, meta?: LogMetadata) => void lines.push(meta ?? {}),
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    };
    const logger = createRedactingLogger(inner, []);
    for (const field of named) {
      expect(isLoggedSecretField(field)).toBe(true);
      logger.info('answer', { answer: { [field]: 'hunter2-value' } });
    }
    expect(JSON.stringify(lines)).not.toContain('hunter2-value');
    // Broader than the catalogue: credentials the worker handles are redacted too.
    for (const field of ['apiKey', 'api_key', 'token', 'secretKey'])
      expect(isLoggedSecretField(field)).toBe(true);
    expect(isLoggedSecretField('name')).toBe(false);
  });
});

describe('creates', () => {
  test('are the operations of kind create, and each has an adoption finder', () => {
    expect(CREATE_ACTIONS).toEqual(ACTION_NAMES.filter((a) => operations[a].kind === 'create'));
    expect(Object.keys(ADOPTION_FINDERS).sort()).toEqual([...CREATE_ACTIONS].sort());
    for (const action of ACTION_NAMES)
      expect(isCreateAction(action)).toBe(CREATE_ACTIONS.includes(action as never));
  });

  test.each(CREATE_ACTIONS)(
    '%s: its adoption fact names a list of the catalogue and fields that exist',
    (action) => {
      const { adopt, resource } = operations[action];
      expect(isActionName(adopt.list)).toBe(true);
      const list = adopt.list as ActionName;
      expect(operations[list].kind).toBe('read');
      expect(operations[list].resource).toBe(resource);
      // The list's path parameters come from the create's input.
      expect(isSubset(pathParamsOf(list), pathParamsOf(action))).toBe(true);
      expect(adopt.match.length).toBeGreaterThan(0);
      for (const { answer, input } of adopt.match) {
        expect(inputFieldsOf(action)).toContain(input);
        expect(checkOutputPath(list, ['0', ...answer])).toBeUndefined();
      }
      if (adopt.goneStatuses.length > 0) expect(checkOutputPath(list, ['0', 'status'])).toBeUndefined();
      if (adopt.defaultName !== undefined) {
        expect(isActionName(adopt.defaultName.read)).toBe(true);
        const read = adopt.defaultName.read as ActionName;
        expect(isSubset(pathParamsOf(read), pathParamsOf(action))).toBe(true);
        expect(checkOutputPath(read, ['name'])).toBeUndefined();
        expect(inputFieldsOf(action)).toContain('name');
      }
      expect(adopt.describe({ name: 'orders', vpc_id: '7', peer_vpc_id: 'v' })).toMatch(/already exists$/);
    },
  );

  test.each(CREATE_ACTIONS)('%s answers the field its resource’s new id is read from', (action) => {
    const field = RESOURCES[operations[action].resource].createdIdField;
    expect(field).toBeDefined();
    expect(checkOutputPath(action, [field ?? ''])).toBeUndefined();
  });
});

describe('changes', () => {
  const changes = ACTION_NAMES.filter(
    (a) => operations[a].kind === 'mutate' || operations[a].kind === 'delete',
  );

  test('each has an already-applied check but the password change, which nothing can read back', () => {
    expect(changes.filter((a) => operations[a].alreadyApplied.check === 'none')).toEqual([
      'service.updatePassword',
    ]);
    expect(Object.keys(ALREADY_APPLIED).sort()).toEqual(
      changes.filter((a) => a !== 'service.updatePassword').sort(),
    );
    for (const action of ACTION_NAMES.filter((a) => !changes.includes(a)))
      expect(operations[action].alreadyApplied.check).toBe('none');
  });

  // Chosen up front, so that every case below has a read to check.
  const checkedChanges = changes.filter((a) => readOfCheck(operations[a].alreadyApplied) !== undefined);

  test('every change but the password change has a check that reads', () => {
    expect(changes.filter((a) => !checkedChanges.includes(a))).toEqual(['service.updatePassword']);
  });

  test.each(checkedChanges)('%s: what its check reads takes path parameters the change has', (action) => {
    const fact = operations[action].alreadyApplied;
    const read = readOfCheck(fact);
    expect(read).toBeDefined();
    expect(isSubset(pathParamsOf(read!), pathParamsOf(action))).toBe(true);
    if (fact.check === 'replicaSet') expect(pathParamsOf(action)).toContain('replica_set_id');
  });

  test('a locked resource’s changes name the service whose lock they take', () => {
    const locked = RESOURCE_NAMES.filter((r) => RESOURCES[r].lock === 'service');
    expect(locked.sort()).toEqual(['replicaSet', 'service']);
    for (const action of changes.filter((a) => locked.includes(operations[a].resource)))
      expect(pathParamsOf(action)).toContain('service_id');
  });
});

describe('fault outcomes', () => {
  test('each outcome applies to the operations that list it, and a rule elsewhere is refused', () => {
    for (const outcome of FAULT_OUTCOMES) {
      expect(OUTCOME_ACTIONS[outcome].length).toBeGreaterThan(0);
      for (const action of ACTION_NAMES) {
        const listed = operations[action].faultOutcomes.includes(outcome);
        expect(OUTCOME_ACTIONS[outcome].includes(action)).toBe(listed);
        expect(FaultRuleInput.safeParse({ kind: 'outcome', action, outcome }).success).toBe(listed);
      }
    }
    expect([...OUTCOME_ACTIONS.stuckQueued].sort()).toEqual(['service.create', 'service.fork']);
    // Only changes and creates have an outcome to script.
    for (const action of ACTION_NAMES.filter((a) => operations[a].kind === 'read'))
      expect(operations[action].faultOutcomes).toEqual([]);
  });
});
