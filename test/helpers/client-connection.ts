// A client connection for test stacks that can be closed with calls still in flight. The SDK's
// gRPC retry interceptor retries a call that failed with UNAVAILABLE on a timer, and
// Connection.close() does not stop those timers: a test that ends with a call pending (a run's
// result after a timeout, say) closes the connection, stops the server, and the call's retry
// then throws "Channel has been shut down" from a timer — into whichever suite runs next in that
// Jest worker. Once closed, this connection retries nothing: pending calls fail instead.
import { defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type Connection } from '@temporalio/client';
import { connectClient, localConnectionSettings } from '../../worker/connection';

export interface ClosableConnection {
  connection: Connection;
  /** Stops retries, then closes the connection. */
  close(): Promise<void>;
}

export async function connectClosable(address: string): Promise<ClosableConnection> {
  let closed = false;
  const defaults = defaultGrpcRetryOptions();
  const connection = await connectClient(localConnectionSettings(address), {
    interceptors: [
      makeGrpcRetryInterceptor({
        ...defaults,
        retryableDecider: (attempt, status) => !closed && defaults.retryableDecider(attempt, status),
      }),
    ],
  });
  return {
    connection,
    async close() {
      closed = true;
      await connection.close();
    },
  };
}
