// Which cancels the cancel round makes: a seeded draw, so that every case can be made again on its
// own (`--cancel-seed=S --cancel-case=I`). Each case is one run of provision-production-service or
// fork-and-promote, cancelled at a random moment of one of four kinds.
import type { RunbookDefinition } from '../../dsl/definition';
import { cancelPointsOf, type CancelPoint } from '../lib/cancel-runs';

export type CancelRunbook = 'provision-production-service' | 'fork-and-promote';

/**
 * - `in-flight`: a step's API requests are held open by the local cloud (latency fault) and the
 *   cancel lands a random moment into the hold, while the call is in flight;
 * - `after-step`: right after a step is done (the next step's requests held open);
 * - `random-time`: a random moment after the start, nothing held;
 * - `approval-pending`: fork-and-promote with an approval, while the approval is pending.
 */
export type CancelMoment = 'in-flight' | 'after-step' | 'random-time' | 'approval-pending';

export interface CancelCase {
  index: number;
  runbook: CancelRunbook;
  moment: CancelMoment;
  /** in-flight / after-step: where. */
  point?: CancelPoint;
  /** How long the held action's requests are held open, ms. */
  holdMs?: number;
  /** After the point is reached (or, for random-time, after the start), ms. */
  delayMs: number;
}

/** mulberry32: small, seedable, good enough to spread cancel moments. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface PlanInputs {
  definitions: Record<CancelRunbook, RunbookDefinition>;
  /** How long an uncancelled run of each runbook took (calibration), ms. */
  runMs: Record<CancelRunbook, number>;
}

function shuffled<T>(random: () => number, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * The first `count` cases of the round with `seed`. Runbooks alternate; each case draws its kind
 * of moment, hold and delay from its own seeded generator; in-flight and after-step cases walk
 * their runbook's points in a seeded order, so a round of 60 cancels (the default) puts one into every call.
 * Case `i` is the same whatever `count` is (`planCases(seed, i + 1)[i]` makes it again alone).
 */
export function planCases(seed: number, count: number, inputs: PlanInputs): CancelCase[] {
  const order = seededRandom(seed);
  const cycles = new Map<string, { points: CancelPoint[]; next: number }>();
  for (const runbook of Object.keys(inputs.definitions) as CancelRunbook[]) {
    const points = cancelPointsOf(inputs.definitions[runbook]);
    cycles.set(`${runbook} in-flight`, {
      points: shuffled(
        order,
        points.filter((p) => p.when === 'during' && p.hold !== undefined),
      ),
      next: 0,
    });
    cycles.set(`${runbook} after-step`, {
      points: shuffled(
        order,
        points.filter((p) => p.when === 'after'),
      ),
      next: 0,
    });
  }
  const nextPoint = (runbook: CancelRunbook, moment: CancelMoment): CancelPoint => {
    const cycle = cycles.get(`${runbook} ${moment}`)!;
    return cycle.points[cycle.next++ % cycle.points.length]!;
  };
  return Array.from({ length: count }, (_, index): CancelCase => {
    const random = seededRandom(seed * 1_000_003 + index);
    const runbook: CancelRunbook = index % 2 === 0 ? 'provision-production-service' : 'fork-and-promote';
    const draw = random();
    const moment: CancelMoment =
      runbook === 'fork-and-promote' && draw < 0.1
        ? 'approval-pending'
        : draw < 0.7
          ? 'in-flight'
          : draw < 0.85
            ? 'after-step'
            : 'random-time';
    if (moment === 'in-flight') {
      const holdMs = 600 + Math.round(random() * 1_900);
      const delayMs = Math.round(random() * holdMs * 0.8);
      return { index, runbook, moment, point: nextPoint(runbook, moment), holdMs, delayMs };
    }
    if (moment === 'after-step') {
      return { index, runbook, moment, point: nextPoint(runbook, moment), holdMs: 1_500, delayMs: 0 };
    }
    if (moment === 'approval-pending') return { index, runbook, moment, delayMs: Math.round(random() * 500) };
    return { index, runbook, moment, delayMs: Math.round(random() * inputs.runMs[runbook] * 1.1) };
  });
}

export function describeCase(c: CancelCase): string {
  const where = c.point ? ` ${c.point.when} ${c.point.step}` : '';
  const held = c.point?.hold ? `, ${c.point.hold} held ${c.holdMs} ms` : '';
  return `#${c.index} ${c.runbook} ${c.moment}${where}${held}, cancel +${c.delayMs} ms`;
}
