// Create-or-adopt: the API has no idempotency keys, and a create can take effect yet answer 5xx or
// time out. Before creating, every attempt looks for what the same create would have made:
// on the first attempt a match means the name is taken by someone else; on a retry it is what an
// earlier attempt of ours created, and it is adopted instead of creating a second one. How to look
// is each create's `adopt` fact in the catalogue (cloud/operations.ts); this module carries it out.
//
// The list grows with the project, and the look runs before every create, so the listed elements
// are matched as the JSON arrived (the fields matched on are plain strings the answer schemas pass
// through unchanged) and only the one adopted is read with the response schema; a list whose text
// holds none of the matched strings (a new name, as most creates have) is not parsed at all.
import { z } from 'zod';
import type { Adoption } from '../cloud/operation-facts';
import { readAnswerPart } from '../cloud/response';
import { collectSecretValues } from '../cloud/redact';
import {
  CREATE_ACTIONS,
  operations,
  pathParamsFrom,
  type ActionName,
  type CreateAction,
} from '../cloud/operations';
import type { CallOptions, ActivityDeps } from './deps';
import { callAction } from './call-action';

export type { CreateAction } from '../cloud/operations';

type Input = Record<string, unknown>;
type Finder = (
  deps: ActivityDeps,
  input: Input,
  options: CallOptions,
) => Promise<Record<string, unknown> | undefined>;

function readPath(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** Finds what a create with `input` made, as its `adopt` fact says. */
async function findCreated(
  deps: ActivityDeps,
  create: CreateAction,
  adoption: Adoption,
  input: Input,
  options: CallOptions,
): Promise<Record<string, unknown> | undefined> {
  const params: readonly string[] = operations[create].pathParams;
  const wanted = { ...input };
  if (adoption.defaultName !== undefined && input.name === undefined) {
    const read = adoption.defaultName.read as ActionName;
    const parent = (await callAction(deps, read, pathParamsFrom(read, input), options)) as unknown as Input;
    wanted.name = `${(parent.name as string | undefined) ?? ''}${adoption.defaultName.suffix}`;
  }
  const list = adoption.list as ActionName;
  const expected = adoption.match.map(({ input: field }) =>
    params.includes(field) ? String(wanted[field]) : wanted[field],
  );
  const listed: unknown = await callAction(deps, list, pathParamsFrom(list, input), {
    ...options,
    checkBody: false,
    // A list whose text holds no such string is not parsed (most creates: a new name).
    elementsHolding: expected.filter((value): value is string => typeof value === 'string'),
  });
  const context = {
    action: list,
    secrets: collectSecretValues(input),
    status: operations[list].successStatus,
  };
  // The schema only words the error; a well-formed list is taken without walking it twice.
  const elements = isListOfObjects(listed)
    ? listed
    : (readAnswerPart(LISTED_OBJECTS, listed, context) as Input[]);
  // A path parameter travels as a string in the URL, and is compared so.
  const found = elements.find(
    (element) =>
      adoption.match.every(({ answer }, index) => readPath(element, answer) === expected[index]) &&
      !adoption.goneStatuses.includes(String(element.status ?? '')),
  );
  if (found === undefined) return undefined;
  return readAnswerPart(listElementSchema(list), found, context) as Input;
}

/** What a list answer must be before its elements are matched: objects, each read later if kept. */
const LISTED_OBJECTS = z.array(z.record(z.string(), z.unknown()));

function isListOfObjects(value: unknown): value is Input[] {
  return (
    Array.isArray(value) &&
    value.every((element) => typeof element === 'object' && element !== null && !Array.isArray(element))
  );
}

function listElementSchema(list: ActionName): z.ZodType {
  const response = operations[list].response;
  if (!(response instanceof z.ZodArray)) throw new Error(`${list} does not answer a list`);
  return response.element as z.ZodType;
}

export const ADOPTION_FINDERS: Readonly<Record<CreateAction, Finder>> = Object.fromEntries(
  CREATE_ACTIONS.map((action) => [
    action,
    (deps: ActivityDeps, input: Input, options: CallOptions) =>
      findCreated(deps, action, operations[action].adopt, input, options),
  ]),
) as Record<CreateAction, Finder>;

export function isCreateAction(action: ActionName): action is CreateAction {
  return operations[action].kind === 'create';
}

/** How a create attempt may treat an existing match. */
export function describeExisting(action: CreateAction, input: Input): string {
  return operations[action].adopt.describe(input);
}
