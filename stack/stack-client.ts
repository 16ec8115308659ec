// A stack's Temporal client: the stack's payload keys, and a connection that can be closed with
// calls still in flight. The SDK's gRPC retry interceptor retries a call that failed with
// UNAVAILABLE on a timer, and Connection.close() does not stop those timers: a caller that closes
// the stack with a call pending (a run's result after a timeout, say) stops the server, and the
// call's retry then throws "Channel has been shut down" from a timer. Once closed, this
// connection retries nothing: pending calls fail instead.
/* eslint-disable @typescript-eslint/no-require-imports -- the SDK is loaded on first use */
import type { Client, Connection } from '@temporalio/client';
import { createDataConverter } from '../worker/codec';
import { connectClient, type TemporalSettings } from '../worker/connection';
import type { EncryptionKeyRing } from '../worker/encryption-keys';

export interface StackClient {
  readonly client: Client;
  readonly connection: Connection;
  /** Stops retries, then closes the connection. */
  close(): Promise<void>;
}

export async function connectStackClient(
  settings: TemporalSettings,
  keyRing: EncryptionKeyRing,
): Promise<StackClient> {
  const sdk = require('@temporalio/client') as typeof import('@temporalio/client');
  let closed = false;
  const defaults = sdk.defaultGrpcRetryOptions();
  const connection = await connectClient(settings, {
    interceptors: [
      sdk.makeGrpcRetryInterceptor({
        ...defaults,
        retryableDecider: (attempt, status) => !closed && defaults.retryableDecider(attempt, status),
      }),
    ],
  });
  const client = new sdk.Client({
    connection,
    namespace: settings.namespace,
    dataConverter: createDataConverter(keyRing),
  });
  return {
    client,
    connection,
    async close() {
      closed = true;
      await connection.close();
    },
  };
}
