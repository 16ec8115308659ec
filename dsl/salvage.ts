// When the schema rejects a document, the semantic rules still run on what it accepts, so one
// run reports everything. A rejected step or input is kept with its offending fields removed
// (when that leaves it valid); top-level steps keep their original index for positions.
import type { z } from 'zod';
import type { ProblemPath } from './problems';
import { InputSpec, OutputSpec, STEP_KIND_SCHEMAS, STEP_KINDS } from './schema';
import type { Runbook, Step } from './schema';

export interface SalvagedRunbook {
  runbook: Runbook;
  /** The document path of each kept top-level step. */
  stepPaths: ProblemPath[];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Parses `raw`, or parses it again without the fields the schema complained about. */
function withoutBadFields<T>(schema: z.ZodType<T>, raw: unknown, keep: readonly string[]): T | undefined {
  const first = schema.safeParse(raw);
  if (first.success) return first.data;
  if (!isPlainObject(raw)) return undefined;
  const bad = new Set<string>();
  for (const issue of first.error.issues) {
    if (issue.code === 'unrecognized_keys' && issue.path.length === 0)
      issue.keys.forEach((key) => bad.add(key));
    else if (issue.path[0] !== undefined) bad.add(String(issue.path[0]));
  }
  if ([...bad].some((key) => keep.includes(key)) || bad.size === 0) return undefined;
  const trimmed = Object.fromEntries(Object.entries(raw).filter(([key]) => !bad.has(key)));
  const second = schema.safeParse(trimmed);
  return second.success ? second.data : undefined;
}

function salvageStep(raw: unknown): Step | undefined {
  if (!isPlainObject(raw)) return undefined;
  const kinds = STEP_KINDS.filter((kind) => kind in raw);
  const kind = kinds[0];
  if (kinds.length !== 1 || kind === undefined) return undefined;
  return withoutBadFields(STEP_KIND_SCHEMAS[kind] as z.ZodType<Step>, raw, ['id', kind]);
}

function salvageEntries<T>(value: unknown, parse: (raw: unknown) => T | undefined): Record<string, T> {
  if (!isPlainObject(value)) return {};
  const out: Record<string, T> = {};
  for (const [name, raw] of Object.entries(value)) {
    const parsed = parse(raw);
    if (parsed !== undefined) out[name] = parsed;
  }
  return out;
}

export function salvageRunbook(raw: unknown): SalvagedRunbook | undefined {
  if (!isPlainObject(raw)) return undefined;
  const steps: Step[] = [];
  const stepPaths: ProblemPath[] = [];
  if (Array.isArray(raw.steps)) {
    raw.steps.forEach((item, index) => {
      const step = salvageStep(item);
      if (step) {
        steps.push(step);
        stepPaths.push(['steps', index]);
      }
    });
  }
  return {
    runbook: {
      apiVersion: 'tideline/v1',
      name: typeof raw.name === 'string' ? raw.name : 'runbook',
      description: typeof raw.description === 'string' ? raw.description : '',
      inputs: salvageEntries(raw.inputs, (spec) => withoutBadFields(InputSpec, spec, ['type'])),
      steps,
      outputs: salvageEntries(raw.outputs, (spec) => withoutBadFields(OutputSpec, spec, ['value'])),
    },
    stepPaths,
  };
}
