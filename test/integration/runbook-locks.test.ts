// Two runs that change the same service queue on its lock; runs on different services do not.
import path from 'node:path';
import type { RunReport } from '../../workflows/messages';
import { progressQuery } from '../../workflows/messages';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

const HOLD = path.resolve(__dirname, '..', 'fixtures', 'locks', 'hold-service.yaml');

describe('per-service locks', () => {
  let stack: RunbookStack;
  const ids: string[] = [];

  beforeAll(async () => {
    stack = await startRunbookStack({ timeScale: 0.02 });
    for (const name of ['alpha', 'beta']) {
      const created = await stack.api.service.create({ project_id: stack.projectId, name });
      ids.push(created.service_id!);
    }
    for (let i = 0; i < 100; i++) {
      const services = await stack.api.service.list({ project_id: stack.projectId });
      if (services.every((s) => s.status === 'READY')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 120_000);
  afterAll(async () => stack?.close());

  test('a second run on the same service waits until the first has finished', async () => {
    const inputs = { project_id: stack.projectId, service_id: ids[0], hold: '1500ms' };
    const first = await stack.start(HOLD, inputs);
    for (let i = 0; i < 100; i++) {
      if ((await first.query(progressQuery)).locks?.length) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const second = await stack.start(HOLD, inputs);
    let sawQueued = false;
    for (let i = 0; i < 20 && !sawQueued; i++) {
      const progress = await second.query(progressQuery);
      sawQueued = progress.waitingForLock === `service/${stack.projectId}/${ids[0]}`;
      if (!sawQueued) await new Promise((r) => setTimeout(r, 50));
    }
    expect(sawQueued).toBe(true);
    const [a, b] = (await Promise.all([first.result(), second.result()])) as [RunReport, RunReport];
    expect(a.status).toBe('succeeded');
    expect(b.status).toBe('succeeded');
    const firstEnded = a.endedAt!;
    const secondTagStarted = b.steps.find((s) => s.id === 'tag')!.startedAt!;
    expect(secondTagStarted).toBeGreaterThanOrEqual(firstEnded);
  }, 60_000);

  test('runs on different services do not wait for each other', async () => {
    const first = await stack.start(HOLD, {
      project_id: stack.projectId,
      service_id: ids[0],
      hold: '1500ms',
    });
    const second = await stack.start(HOLD, {
      project_id: stack.projectId,
      service_id: ids[1],
      hold: '1500ms',
    });
    const [a, b] = (await Promise.all([first.result(), second.result()])) as [RunReport, RunReport];
    const aTag = a.steps.find((s) => s.id === 'tag')!.startedAt!;
    const bTag = b.steps.find((s) => s.id === 'tag')!.startedAt!;
    expect(Math.abs(aTag - bTag)).toBeLessThan(1_500);
  }, 60_000);
});
