// The language table: every facet of each step kind (./facets.ts), by kind: what the normaliser
// and the validator read. Not for the workflow sandbox (it loads the schemas and the catalogue):
// the workflow reads the runtime facts (./runtime-table.ts).
import type { StepKind } from '../schema';
import { APPROVE } from './approve';
import { ASSERT } from './assert';
import { CALL } from './call';
import type { StepKindLanguage, StepKindLanguageTable } from './facets';
import { FAIL } from './fail';
import { FOREACH } from './foreach';
import { PARALLEL } from './parallel';
import { RUNBOOK } from './runbook';
import { SLEEP } from './sleep';
import { WAIT } from './wait';
import { WATCH } from './watch';

export const STEP_KIND_LANGUAGE = {
  call: CALL,
  wait: WAIT,
  sleep: SLEEP,
  approve: APPROVE,
  assert: ASSERT,
  parallel: PARALLEL,
  foreach: FOREACH,
  runbook: RUNBOOK,
  fail: FAIL,
  watch: WATCH,
} as const satisfies StepKindLanguageTable;

/** The language facets of a kind, for a step of any kind (the facets take the step as any kind). */
export function languageOf(kind: StepKind): StepKindLanguage<StepKind> {
  return STEP_KIND_LANGUAGE[kind] as unknown as StepKindLanguage<StepKind>;
}
