// How a worker's CPU profile becomes the table kept with a figure's results
// (bench/profile-top-frames.ts): self time per function from the samples' time deltas, summed by
// area, idle left out.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { frameArea, frameLocation, topFramesReport } from '../../bench/profile-top-frames';
import { REPO_ROOT } from '../../bench/lib/repo';

const frame = (id: number, functionName: string, url: string, lineNumber = 0) => ({
  id,
  callFrame: { functionName, url, lineNumber },
});

test('a frame is placed in this repository, a package or Node', () => {
  expect(frameLocation(`file://${REPO_ROOT}/dist/dsl/templates.js`)).toBe('dist/dsl/templates.js');
  expect(frameLocation('file:///elsewhere/wt/dist/workflows/locks.js')).toBe('dist/workflows/locks.js');
  expect(frameLocation(`${REPO_ROOT}/node_modules/@temporalio/worker/lib/worker.js`)).toBe(
    '@temporalio/worker: lib/worker.js',
  );
  expect(frameLocation(`${REPO_ROOT}/node_modules/zod/v4/core/parse.js`)).toBe('zod: v4/core/parse.js');
  expect(
    frameArea({ functionName: 'x', url: `file://${REPO_ROOT}/dist/dsl/templates.js`, lineNumber: 1 }),
  ).toBe('tideline dsl/');
  expect(frameArea({ functionName: 'x', url: 'node:internal/streams', lineNumber: 1 })).toBe(
    'node internals',
  );
  expect(
    frameArea({ functionName: 'x', url: `file://${REPO_ROOT}/dist/workflow-bundle.js`, lineNumber: 1 }),
  ).toBe('workflow bundle');
  expect(
    frameArea({ functionName: 'x', url: `file://${REPO_ROOT}/bench/build/cloud/response.js`, lineNumber: 1 }),
  ).toBe('tideline cloud/');
  expect(frameArea({ functionName: '(garbage collector)', url: '', lineNumber: 0 })).toBe(
    '(garbage collector)',
  );
});

test('self time comes from the gap to the next sample; idle is left out', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'profile-'));
  writeFileSync(
    path.join(dir, 'CPU.1.cpuprofile'),
    JSON.stringify({
      nodes: [
        frame(1, '(root)', ''),
        frame(2, 'resolveTemplates', `file://${REPO_ROOT}/dist/dsl/templates.js`, 9),
        frame(3, '(idle)', ''),
        frame(4, 'parse', `${REPO_ROOT}/node_modules/zod/v4/core/parse.js`, 0),
      ],
      // Samples: templates 3 ms, idle 50 ms, zod 1 ms, templates 2 ms (the last sample's time is
      // unknown: nothing follows it).
      samples: [2, 3, 4, 2, 4],
      timeDeltas: [0, 3000, 50000, 1000, 2000],
    }),
  );
  const report = topFramesReport([dir], 10, 'test');
  expect(report).toContain('Sampled CPU, idle left out: 6 ms over 1 threads.');
  expect(report).toContain('| tideline dsl/ | 5 | 83.3 % |');
  expect(report).toContain('| zod | 1 | 16.7 % |');
  expect(report).toContain('| resolveTemplates dist/dsl/templates.js:10 | tideline dsl/ | 5 | 83.3 % |');
  expect(report).not.toContain('(idle)');
});
