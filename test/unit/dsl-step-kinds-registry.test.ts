// The step-kind tables: every kind has an entry in each, and each entry has every facet. The
// `@ts-expect-error` lines are the type-level part: `npm test` type-checks this file first (the
// pretest `tsc --noEmit`), and an expected error that does not happen is itself an error, so a
// table that accepted a kind without a facet, or a missing kind, would fail the suite.
import { STEP_KINDS, type StepKind } from '../../dsl/schema';
import type {
  StepKindLanguage,
  StepKindLanguageTable,
  StepKindRuntimeTable,
} from '../../dsl/step-kinds/facets';
import { STEP_KIND_RUNTIME } from '../../dsl/step-kinds/runtime-table';
import { STEP_KIND_LANGUAGE } from '../../dsl/step-kinds/table';
import { STEP_KIND_VIEWS, type StepKindViews } from '../../cli/plan/step-kind-views';
import { FAIL } from '../../dsl/step-kinds/fail';

type ViewsTable = { [K in StepKind]: StepKindViews<K> };

describe('step-kind tables', () => {
  it('have one entry per kind, each of its own kind', () => {
    for (const table of [STEP_KIND_RUNTIME, STEP_KIND_LANGUAGE]) {
      expect(Object.keys(table).sort()).toEqual([...STEP_KINDS].sort());
      for (const [kind, entry] of Object.entries(table)) expect(entry.kind).toBe(kind);
    }
    expect(Object.keys(STEP_KIND_VIEWS).sort()).toEqual([...STEP_KINDS].sort());
  });

  it('do not compile with a facet or a kind missing', () => {
    const { output: _output, ...withoutOutput } = FAIL;
    // @ts-expect-error a language entry without its `output` facet
    const missingFacet: StepKindLanguage<'fail'> = withoutOutput;

    const { canHold: _canHold, ...runtimeWithoutHold } = STEP_KIND_RUNTIME.fail;
    const runtimeWithout = { ...STEP_KIND_RUNTIME, fail: runtimeWithoutHold };
    // @ts-expect-error a runtime entry without `canHold`
    const runtimeMissingFacet: StepKindRuntimeTable = runtimeWithout;

    const { fail: _fail, ...languageWithoutFail } = STEP_KIND_LANGUAGE;
    // @ts-expect-error a language table without the `fail` kind
    const missingKind: StepKindLanguageTable = languageWithoutFail;

    const { diagramShape: _shape, ...failViewsWithoutShape } = STEP_KIND_VIEWS.fail;
    const viewsWithout = { ...STEP_KIND_VIEWS, fail: failViewsWithoutShape };
    // @ts-expect-error a views entry without its diagram shape
    const viewsMissingFacet: ViewsTable = viewsWithout;

    // A kind's entry under another kind does not fit either.
    // @ts-expect-error the `fail` facets are not the `sleep` kind's
    const wrongKind: StepKindLanguage<'sleep'> = FAIL;

    expect([missingFacet, runtimeMissingFacet, missingKind, viewsMissingFacet, wrongKind]).toHaveLength(5);
  });
});
