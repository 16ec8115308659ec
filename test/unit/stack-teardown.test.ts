// A local stack's parts stop latest first, every one even when one fails, each once; a part that
// finishes starting after the stack closed is stopped at once.
import { createTeardown, unwindOnFailure } from '../../stack/teardown';

test('parts stop in reverse order, a part added last stops after all others', async () => {
  const stopped: string[] = [];
  const teardown = createTeardown();
  teardown.addLast(() => void stopped.push('server'));
  teardown.add(() => void stopped.push('cloud'));
  teardown.add(async () => {
    await Promise.resolve();
    stopped.push('worker');
  });
  await teardown.close();
  expect(stopped).toEqual(['worker', 'cloud', 'server']);
});

test('one failing stop does not keep the others running; the first failure is reported', async () => {
  const stopped: string[] = [];
  const teardown = createTeardown();
  teardown.add(() => void stopped.push('server'));
  teardown.add(() => {
    throw new Error('cloud: broken answers');
  });
  teardown.add(() => {
    throw new Error('worker: did not drain');
  });
  await expect(teardown.close()).rejects.toThrow('worker: did not drain');
  expect(stopped).toEqual(['server']);
});

test('closing twice stops each part once', async () => {
  let stops = 0;
  const teardown = createTeardown();
  teardown.add(() => void stops++);
  await teardown.close();
  await teardown.close();
  expect(stops).toBe(1);
});

test('a part added after close is stopped at once', async () => {
  const teardown = createTeardown();
  await teardown.close();
  const stoppedLate = new Promise<string>((resolve) => teardown.add(() => resolve('stopped')));
  await expect(stoppedLate).resolves.toBe('stopped');
});

test('a failed start stops what it had started, then rethrows', async () => {
  const stopped: string[] = [];
  const teardown = createTeardown();
  const start = unwindOnFailure(teardown, async () => {
    teardown.add(() => void stopped.push('server'));
    throw new Error('the local cloud did not start');
  });
  await expect(start).rejects.toThrow('the local cloud did not start');
  expect(stopped).toEqual(['server']);
});
