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

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

export interface PlanInputs {
  definitions: Record<CancelRunbook, RunbookDefinition>;
  /** How long an uncancelled run of each runbook took (calibration), ms. */
  runMs: Record<CancelRunbook, number>;
}

/** The `index`-th case of the round with `seed` (independent of the other cases). */
export function planCase(seed: number, index: number, inputs: PlanInputs): CancelCase {
  const random = seededRandom(seed * 1_000_003 + index);
  const runbook: CancelRunbook = index % 2 === 0 ? 'provision-production-service' : 'fork-and-promote';
  const points = cancelPointsOf(inputs.definitions[runbook]);
  const draw = random();
  const moment: CancelMoment =
    runbook === 'fork-and-promote' && draw < 0.12
      ? 'approval-pending'
      : draw < 0.55
        ? 'in-flight'
        : draw < 0.75
          ? 'after-step'
          : 'random-time';
  if (moment === 'in-flight') {
    const point = pick(
      random,
      points.filter((p) => p.when === 'during' && p.hold !== undefined),
    );
    const holdMs = 600 + Math.round(random() * 1_900);
    return { index, runbook, moment, point, holdMs, delayMs: Math.round(random() * holdMs * 0.8) };
  }
  if (moment === 'after-step') {
    const point = pick(
      random,
      points.filter((p) => p.when === 'after'),
    );
    return { index, runbook, moment, point, holdMs: 1_500, delayMs: 0 };
  }
  if (moment === 'approval-pending') {
    return { index, runbook, moment, delayMs: Math.round(random() * 500) };
  }
  return { index, runbook, moment, delayMs: Math.round(random() * inputs.runMs[runbook] * 1.1) };
}

export function describeCase(c: CancelCase): string {
  const where = c.point ? ` ${c.point.when} ${c.point.step}` : '';
  const held = c.point?.hold ? `, ${c.point.hold} held ${c.holdMs} ms` : '';
  return `#${c.index} ${c.runbook} ${c.moment}${where}${held}, cancel +${c.delayMs} ms`;
}
