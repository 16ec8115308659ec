// The shape of an operation handler. The handler table is keyed by the catalogue's action names,
// so an operation without a handler is a compile error.
import type { z } from 'zod';
import type { ActionName, ActionOutput, Operations } from '../../cloud/operations';
import type { OutcomeKind } from '../fault-schema';
import type { RuleOf } from '../faults';
import type { ProjectRecord, ServiceRecord } from '../state';
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
  /** Draws an injected anomaly on this series of this service (spends the rule only when it triggers). */
  anomaly(service: ServiceRecord, series: string): RuleOf<'metricAnomaly'> | undefined;
}

/**
 * A handler's success body in spec.md's dialect (dialect.ts reshapes it for the current one):
 * the parsed type of the catalogue's answer schema, `undefined` for an operation answering without
 * a body. The parsed type, not the input one: an answer schema reads whatever arrives (its input
 * type is `unknown`, cloud/answer-schemas.ts), while its parsed type names the fields the API sends.
 * Fields the client tolerates but does not keep (the current dialect's extras) are added by
 * dialect.ts, after the handler.
 */
export type HandlerAnswer<A extends ActionName> = ActionOutput<A>;

/** Returns the success body, or throws a LocalCloudHttpError. */
export type ActionHandler<A extends ActionName> = (ctx: HandlerContext<A>) => HandlerAnswer<A>;

export type HandlerTable = { readonly [A in ActionName]: ActionHandler<A> };
