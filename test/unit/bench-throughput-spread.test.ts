// Figure 2 with several samples per case (bench/throughput.ts): the median sample by completion
// time is shown, with the min and max of each figure over all samples.
import { medianWithSpread, type ThroughputResult } from '../../bench/throughput';

function sample(completionMs: number, worker: number, server: number): ThroughputResult {
  return {
    completionMs,
    ratio: Math.round((completionMs / 30_000) * 100) / 100,
    cpuMsPerRun: { worker, server, bench: 10 },
  } as ThroughputResult;
}

test('the median sample carries the spread of all of them', () => {
  const result = medianWithSpread([sample(50_000, 60, 40), sample(40_000, 55, 45), sample(45_000, 70, 38)]);
  expect(result.completionMs).toBe(45_000);
  expect(result.spread).toEqual({
    samples: 3,
    completionMs: [40_000, 50_000],
    ratio: [1.33, 1.67],
    workerCpuMsPerRun: [55, 70],
    serverCpuMsPerRun: [38, 45],
  });
});

test('one sample is shown as it is, without a spread', () => {
  expect(medianWithSpread([sample(40_000, 55, 45)]).spread).toBeUndefined();
  expect(() => medianWithSpread([])).toThrow('no throughput samples');
});
