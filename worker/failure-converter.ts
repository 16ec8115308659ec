// Loaded by path (see `failureConverterPath` in codec.ts) by the worker, the workflow bundle and
// every client. `encodeCommonAttributes` moves failure messages and stack traces into an
// encoded payload, so the payload codec encrypts them like any other data.
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
