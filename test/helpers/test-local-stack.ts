// The local stack (stack/stack.ts) as tests start it: a Temporal dev server on the binary
// the setup script resolved, the local cloud checking every answer against the vendor's document,
// and the handles tests hold for both. The answers are checked when the stack closes, after what
// was added to it later (its workers) has stopped.
import { startLocalStack, type LocalStack } from '../../stack/stack';
import type { EncryptionKeyRing } from '../../worker/encryption-keys';
import { prepareTestCloud, type TestCloud, type TestCloudOptions } from './local-cloud';
import { testTemporalOptions, type TemporalServer, type TemporalServerOptions } from './temporal-server';

export interface TestLocalStack {
  stack: LocalStack;
  server: TemporalServer;
  cloud: TestCloud;
}

export async function startTestLocalStack(options: {
  cloud: TestCloudOptions;
  temporal?: TemporalServerOptions | undefined;
  keyRing: EncryptionKeyRing;
  /** Work done while the stack starts (e.g. building dist/). */
  alongside?: Promise<unknown>;
}): Promise<TestLocalStack> {
  const prepared = prepareTestCloud(options.cloud);
  const stack = await startLocalStack({
    temporal: { start: testTemporalOptions(options.temporal) },
    keyRing: options.keyRing,
    cloud: prepared.options,
    ...(options.alongside !== undefined && { alongside: options.alongside }),
  });
  stack.teardown.add(() => prepared.checkAnswers());
  // The stack started this server itself (`start`), so it has one.
  return { stack, server: { ...stack.server!, namespace: 'default' }, cloud: prepared.wrap(stack.cloud) };
}
