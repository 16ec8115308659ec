// The shape of an operation handler. The handler table is keyed by the catalogue's action names,
// so an operation without a handler is a compile error.
import type { z } from 'zod';
import type { ActionName, Operations } from '../../cloud/operations';
import type { OutcomeKind } from '../fault-schema';
import type { RuleOf } from '../faults';
import type { ProjectRecord } from '../state';
import type { World } from '../world';

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface HandlerContext<A extends ActionName> {
  readonly world: World;
  /** The project of the caller's key; its id equals the `project_id` path parameter. */
  readonly project: ProjectRecord;
  readonly params: { [K in Operations[A]['pathParams'][number]]: string };
  readonly body: Parsed<Operations[A]['body']>;
  readonly query: Parsed<Operations[A]['query']>;
  readonly now: number;
  /** Draws a scripted outcome for this request (spends the rule only when it triggers). */
  outcome(kind: OutcomeKind): RuleOf<'outcome'> | undefined;
}

/** Returns the success body (`undefined` for operations answering without one) or throws a SimulatorHttpError. */
export type ActionHandler<A extends ActionName> = (ctx: HandlerContext<A>) => unknown;

export type HandlerTable = { readonly [A in ActionName]: ActionHandler<A> };
