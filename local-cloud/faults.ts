// Fault injection: rules per operation that fire by probability (seeded, so a run repeats under
// the same seed) and/or a fixed number of times.
import type { ActionName } from '../cloud/operations';
import type { Clock } from './clock';
import { omitFieldApplies, outcomeApplies, type FaultRuleSpec, type OutcomeKind } from './fault-schema';
import type { SeededRandom } from './random';

type Kind = FaultRuleSpec['kind'];
export type RuleOf<K extends Kind> = Extract<FaultRuleSpec, { kind: K }>;

export type FaultRuleView = FaultRuleSpec & {
  id: string;
  /** Triggers left when the rule has `times`. */
  remaining?: number;
  /** How many times the rule has triggered so far. */
  fired: number;
};

interface ActiveRule {
  id: string;
  spec: FaultRuleSpec;
  remaining: number | undefined;
  fired: number;
}

export class FaultInjector {
  private rules: ActiveRule[] = [];
  private nextId = 1;

  constructor(
    private readonly random: SeededRandom,
    private readonly clock: Clock,
  ) {}

  /** Adds rules; a metricAnomaly without `from` starts now, on the local cloud's clock. */
  add(specs: readonly FaultRuleSpec[]): FaultRuleView[] {
    const added = specs.map((given) => {
      const spec: FaultRuleSpec =
        given.kind === 'metricAnomaly' && given.from === undefined
          ? { ...given, from: new Date(this.clock.now()).toISOString() }
          : given;
      return { id: `f${this.nextId++}`, spec, remaining: spec.times, fired: 0 };
    });
    this.rules.push(...added);
    return added.map(toView);
  }

  list(): FaultRuleView[] {
    return this.rules.map(toView);
  }

  remove(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((rule) => rule.id !== id);
    return this.rules.length < before;
  }

  clear(): void {
    this.rules = [];
  }

  /** Every rule of `kind` that triggers for this request (latency adds up). */
  fireAll<K extends Kind>(action: ActionName, kind: K): RuleOf<K>[] {
    return this.candidates(action, kind)
      .filter((rule) => this.trigger(rule))
      .map((rule) => rule.spec as RuleOf<K>);
  }

  /** The first rule of `kind` that triggers; later rules are not drawn, so they are not spent. */
  fireFirst<K extends Kind>(action: ActionName, kind: K): RuleOf<K> | undefined {
    return this.fireFirstWhere(action, kind, () => true);
  }

  /** The first scripted `outcome` rule that triggers for this action. */
  fireOutcome(action: ActionName, outcome: OutcomeKind): RuleOf<'outcome'> | undefined {
    return this.fireFirstWhere(action, 'outcome', (spec) => spec.outcome === outcome);
  }

  /** The first metricAnomaly rule on this series of this service (by id or name) that triggers. */
  fireAnomaly(
    action: ActionName,
    service: { readonly id: string; readonly name: string },
    series: string,
  ): RuleOf<'metricAnomaly'> | undefined {
    return this.fireFirstWhere(
      action,
      'metricAnomaly',
      (spec) => spec.series === series && (spec.service === service.id || spec.service === service.name),
    );
  }

  /** The first rule of `kind` that `matches` and triggers; later ones are not drawn. */
  private fireFirstWhere<K extends Kind>(
    action: ActionName,
    kind: K,
    matches: (spec: RuleOf<K>) => boolean,
  ): RuleOf<K> | undefined {
    const rule = this.candidates(action, kind)
      .filter((candidate) => matches(candidate.spec as RuleOf<K>))
      .find((candidate) => this.trigger(candidate));
    return rule?.spec as RuleOf<K> | undefined;
  }

  private candidates(action: ActionName, kind: Kind): ActiveRule[] {
    return this.rules.filter((rule) => {
      if (rule.spec.kind !== kind || rule.remaining === 0) return false;
      if (rule.spec.action !== '*' && rule.spec.action !== action) return false;
      if (rule.spec.kind === 'outcome') return outcomeApplies(rule.spec.outcome, action);
      if (rule.spec.kind === 'omitField') return omitFieldApplies(rule.spec.field, action);
      return true;
    });
  }

  private trigger(rule: ActiveRule): boolean {
    const probability = rule.spec.probability;
    if (probability !== undefined && !(this.random.next() < probability)) return false;
    rule.fired += 1;
    if (rule.remaining !== undefined) rule.remaining -= 1;
    return true;
  }
}

function toView(rule: ActiveRule): FaultRuleView {
  return {
    ...rule.spec,
    id: rule.id,
    ...(rule.remaining !== undefined ? { remaining: rule.remaining } : {}),
    fired: rule.fired,
  };
}
