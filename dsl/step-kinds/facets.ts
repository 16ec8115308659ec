// What every step kind declares about itself in the language: how its YAML normalises, which of
// its fields hold templates and conditions (checked, and narrowed into activity inputs), what its
// output is, which secrets it may print, its own rules, and whether it can hold, call the API or
// be retried with other `with`. Types only.
//
// Why a kind's facets sit in more than one module: the workflow sandbox must not load the schemas
// and the catalogue, and dsl/ may not import the workflow or the CLI. So the facts the workflow
// needs are one entry per kind in ./runtime-table.ts (light, sandbox-safe); the language facets
// are one module per kind (./call.ts, …), each spreading its runtime entry, gathered by
// ./table.ts; how a kind runs is its entry in workflows/step-kinds.ts, how the CLI shows it its
// entry in cli/plan/step-kind-views.ts. Every table is a mapped `Record` over `StepKind`, so a
// kind missing from one, or an entry missing a facet, does not compile.
import type { ActionName } from '../../cloud/operations';
import type { RunbookDefinition, StepDefinition } from '../definition';
import type { JsonValue } from '../expressions';
import type { ProblemPath, RunbookProblem } from '../problems';
import type { RunbookStep, STEP_KIND_SCHEMAS, Step, StepKind } from '../schema';
import type { z } from 'zod';

/** A step of kind K as written (the schema's output). */
export type WrittenStep<K extends StepKind> = z.infer<(typeof STEP_KIND_SCHEMAS)[K]>;

/** A step of kind K as normalised (the workflow's input). */
export type DefinitionOf<K extends StepKind> = Extract<StepDefinition, { kind: K }>;

export interface NormaliseContext {
  /** The common fields (id, if, timeout, retry, compensate, …), already normalised. */
  base: Omit<DefinitionOf<'sleep'>, 'kind' | 'durationMs'>;
  /** Normalises steps this one holds; they inherit its `onFailure` unless they set their own. */
  nested(steps: Step[]): StepDefinition[];
  /** The normalised child of a `runbook` step (the loader resolves the path). */
  childRunbook?: (step: RunbookStep) => RunbookDefinition;
}

/** How the validator checks the expressions in a step's own fields. */
export interface ExpressionFieldCheck {
  /** Every `${{ … }}` inside a value (walked through lists and maps). */
  templates(value: unknown, path: ProblemPath): void;
  /**
   * A condition (`condition`) or list (`items`) field; `result` is the answer of `resultOf` when
   * given. Gives the expression's CEL type (`dyn` when unknown).
   */
  expression(
    raw: string | boolean,
    path: ProblemPath,
    mode: 'condition' | 'items',
    resultOf?: ActionName,
  ): string;
  /** The CEL type of an action's answers. */
  actionType(action: ActionName): string;
}

/** What a step's output is, for typing `steps.<id>.output`, checking its fields and secret reads. */
export type OutputFacet<K extends StepKind> =
  /** The answer of an action (a call's, the last of a wait's polls). */
  | { answerOf: (step: WrittenStep<K>) => ActionName }
  /** A child runbook's outputs. */
  | { childOutputs: (step: WrittenStep<K>) => RunbookStep }
  /** A fixed CEL type (`dyn` when nothing is known). */
  | { cel: string };

/**
 * One thing a normalised step reads itself, in the order it reads them: a value that may hold
 * `${{ … }}` templates, or a bare CEL expression (absent ones are skipped).
 */
export type OwnRead = { template: unknown } | { expression: string | undefined };

/** Where a kind keeps the steps it holds, in either shape. */
export interface NestedSteps<Written, Normalised> {
  /** A parallel step's branches. */
  branches?: {
    written(step: Written): { id: string; steps: Step[] }[];
    normalised(step: Normalised): { id: string; steps: StepDefinition[] }[];
    /** The field the branches are written under (`parallel`) and normalised under (`branches`). */
    writtenField: string;
    normalisedField: string;
  };
  /** A foreach body: runs once per item, its variable named `variable`. */
  body?: {
    written(step: Written): { variable: string; steps: Step[] };
    normalised(step: Normalised): { variable: string; steps: StepDefinition[] };
  };
}

/**
 * The facts about a kind the workflow needs (and the walks, holds and coverage read): pure, over
 * the normalised step, and light enough for the workflow sandbox (no schemas, no catalogue).
 */
export interface StepKindRuntime<K extends StepKind> {
  kind: K;
  /** What it reads itself, beyond `if` and `timeout` (its nested steps are walked separately). */
  reads(step: DefinitionOf<K>): OwnRead[];
  nested: NestedSteps<WrittenStep<K>, DefinitionOf<K>>;
  /** Its failure may hold the run (`onFailure: hold`); containers pass their steps' failures on. */
  canHold: boolean;
  /** It can fail on its own terms (otherwise only by its `timeout`). */
  canFail: boolean;
  /** It calls the Cloud API. */
  callsApi: boolean;
  /** The action it runs or polls (shown on its step record); undefined: none. */
  actionOf(step: DefinitionOf<K>): ActionName | undefined;
  /** It applies `timeout` itself (an activity, wait, approval or child deadline). */
  ownTimeout: boolean;
  /** An undoable one finishes before a cancellation takes effect (its undo must be registered). */
  settlesBeforeCancel: boolean;
  /** Its `with` (an operator may change its fields on a retry of a hold); undefined: it has none. */
  withOf(step: DefinitionOf<K>): Record<string, JsonValue> | undefined;
}

/** Every facet of a kind in the language: its runtime facts, and how it is written and checked. */
export interface StepKindLanguage<K extends StepKind> extends StepKindRuntime<K> {
  /** The YAML schema of the kind (declared in dsl/schema.ts, where the recursive `Step` union is). */
  schema: (typeof STEP_KIND_SCHEMAS)[K];
  normalise(step: WrittenStep<K>, context: NormaliseContext): DefinitionOf<K>;
  /** Checks the expressions of its own fields; gives the CEL type of a foreach's items (else `dyn`). */
  checkExpressions(step: WrittenStep<K>, path: ProblemPath, check: ExpressionFieldCheck): string;
  /** Text printed and kept in plain history: no secret may reach it. */
  messages(step: WrittenStep<K>, path: ProblemPath): { value: unknown; path: ProblemPath; what: string }[];
  output: OutputFacet<K>;
  /**
   * What it hands to an action or child runbook (`with`, checked against the request schema or the
   * child's inputs), checked before the rules common to every step.
   */
  inputProblems(
    step: WrittenStep<K>,
    path: ProblemPath,
    childRunbook: (step: RunbookStep) => RunbookDefinition | undefined,
  ): RunbookProblem[];
  /** The kind's own rules beyond the schema, checked after the common ones. */
  problems(step: WrittenStep<K>, path: ProblemPath): RunbookProblem[];
  /** Step ids the kind generates next to itself (a targets foreach's list step). */
  generatedIds(step: WrittenStep<K>, path: ProblemPath): { id: string; path: ProblemPath }[];
  /**
   * The actions it may name under its own key (`call: service.resize`): any, or only reads;
   * `undefined` when its key names no action. Editors' schemas and "unknown action" come from it.
   */
  namesActions: 'any' | 'read' | undefined;
  /**
   * Its own fields that hold a duration (beyond the common `timeout` and `retry`'s): the validator
   * limits every one of them (MAX_DURATION_MS).
   */
  durations: readonly (keyof WrittenStep<K> & string)[];
}

/** The sandbox table's type: one entry per kind, each typed by its kind. */
export type StepKindRuntimeTable = { [K in StepKind]: StepKindRuntime<K> };

/** The language table: one entry per kind, each typed by its kind. */
export type StepKindLanguageTable = { [K in StepKind]: StepKindLanguage<K> };
