// What a foreach batch answers the run of each iteration (workflows/foreach-batch.ts): the fields
// the run reads of the loop's output, whole results for what compensations read, and compact step
// records the run completes from the step definitions.
import type { ForeachStepDefinition } from '../../dsl/definition';
import { loadRunbookFile } from '../../dsl/loader';
import { foreachOutputReads } from '../../dsl/list-element-reads';
import {
  compactRecord,
  narrowIteration,
  outputReadsOf,
  stepsReadByUndo,
} from '../../workflows/foreach-batch';
import path from 'node:path';

const service = { service_id: 's1', name: 'a', status: 'PAUSED', spec: { cpu: 1 } };
const iteration = {
  stop: { status: 'done' as const, output: service },
  paused: { status: 'done' as const, output: service },
};

test('only the fields the run reads are kept; unread outputs are null', () => {
  expect(narrowIteration(iteration, { paused: ['service_id'] }, new Set())).toEqual({
    stop: { status: 'done', output: null },
    paused: { status: 'done', output: { service_id: 's1' } },
  });
  expect(narrowIteration(iteration, { paused: null }, new Set())).toEqual({
    stop: { status: 'done', output: null },
    paused: iteration.paused,
  });
});

test('what compensations read, or a run that reads the whole output, keeps everything', () => {
  expect(narrowIteration(iteration, { paused: ['service_id'] }, new Set(['stop']))).toEqual({
    stop: iteration.stop,
    paused: { status: 'done', output: { service_id: 's1' } },
  });
  expect(narrowIteration(iteration, undefined, new Set())).toBe(iteration);
  expect(narrowIteration(iteration, {}, 'whole')).toBe(iteration);
  expect(outputReadsOf('whole')).toBeUndefined();
});

test('stop-dev-services: batches answer the paused service_id, and its undo reads no step result', () => {
  const definition = loadRunbookFile(path.resolve(__dirname, '../../runbooks/stop-dev-services.yaml'));
  const loop = definition.steps.find((step) => step.id === 'stop_each') as ForeachStepDefinition;
  expect(outputReadsOf(foreachOutputReads(definition, 'stop_each'))).toEqual({ paused: ['service_id'] });
  expect(stepsReadByUndo(loop)).toEqual(new Set());
});

test('a compact record leaves out what the step definition says', () => {
  expect(
    compactRecord({
      key: 'each[3].paused',
      id: 'paused',
      kind: 'wait',
      name: 'Wait',
      status: 'done',
      action: 'service.get',
      waitingFor: "service.get: result.status == 'PAUSED'",
      startedAt: 1,
      endedAt: 2,
      resources: [{ type: 'service', id: 's1' }],
    }),
  ).toEqual({
    key: 'each[3].paused',
    id: 'paused',
    status: 'done',
    startedAt: 1,
    endedAt: 2,
    resources: [{ type: 'service', id: 's1' }],
  });
});
