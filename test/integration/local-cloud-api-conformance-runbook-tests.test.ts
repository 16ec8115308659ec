// The shipped runbook tests, state cases included, run in process as `tideline test runbooks/`
// runs them, with every answer of every case's local cloud (starting state, faults and end state
// included) checked against the vendor's API document and the overlays of test/api-conformance/ —
// the same check every suite's test cloud makes, for the clouds `tideline test` starts itself.
import { loadSuite, runSuite } from '../../rehearsal/run-suite';
import { AnswerConformanceRecorder } from '../helpers/answer-conformance';
import { describeWithTools } from '../helpers/tool-requirements';
import { vendorDocumentMissing } from '../helpers/vendor-openapi';
import { REPO_ROOT } from '../helpers/worker-process';

describeWithTools("tideline test's local clouds against the vendor document", vendorDocumentMissing(), () => {
  test('the shipped cases pass and every answer their clouds give matches the document', async () => {
    const suite = loadSuite(['runbooks'], REPO_ROOT, undefined);
    if (!suite.ok) throw new Error(JSON.stringify(suite.problems));
    const recorder = new AnswerConformanceRecorder();
    const results = await runSuite(
      suite.cases,
      {
        env: process.env,
        jobs: 4,
        timeoutMs: 120_000,
        log: () => undefined,
        onResult: () => undefined,
        observeAnswers: recorder.observe,
      },
      suite.stateCases,
    );
    const failed = results
      .filter((result) => !result.passed)
      .map((result) => `${result.name}: ${JSON.stringify(result.error ?? result.mismatches)}`);
    expect(failed).toEqual([]);
    // Every case's cloud was heard: its starting state, the run's calls and the end state read.
    expect(recorder.answersChecked).toBeGreaterThan(suite.cases.length * 5);
    expect(recorder.report()).toBeUndefined();
  }, 300_000);
});
