// For the native cluster's mutual TLS (`tideline cluster up --mtls`): whether this machine can
// issue the certificates (the `openssl` command line), and a raw gRPC client on Node's own http2
// and tls, with nothing of Temporal's SDK between the test and the server's TLS listener, that
// reports how a call ended: answered (with its grpc-status) or refused (with the error code of
// the TLS alert or socket error that ended the connection).
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import { OPENSSL_MISSING, TLS_SERVER_NAME, findOpenssl } from '../../cluster/certificates';

/** Why the cluster's certificates cannot be issued here, or undefined when they can. */
export function opensslMissing(): string | undefined {
  return findOpenssl(process.env) === undefined ? OPENSSL_MISSING : undefined;
}

/** How the raw client speaks to the server: no TLS at all, or TLS trusting `ca` with an optional client pair. */
export type RawTransport = { plaintext: true } | { ca: string; cert?: string; key?: string };

export type RawOutcome =
  | { answered: true; grpcStatus: string | undefined }
  /** `serverSpokeHttp2`: the server's SETTINGS frame arrived (a TLS refusal comes before it). */
  | { answered: false; code: string; message: string; serverSpokeHttp2: boolean };

export const GET_SYSTEM_INFO = '/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo';
export const HEALTH_CHECK = '/grpc.health.v1.Health/Check';

/**
 * One unary gRPC call with an empty request message to `method` at 127.0.0.1:`port`. The server's
 * certificate is verified against `ca` for TLS_SERVER_NAME, so a refusal is about the client's side.
 */
export function rawGrpcCall(port: number, transport: RawTransport, method: string): Promise<RawOutcome> {
  const options: http2.SecureClientSessionOptions =
    'plaintext' in transport
      ? {}
      : {
          ca: readFileSync(transport.ca),
          servername: TLS_SERVER_NAME,
          ...(transport.cert !== undefined && { cert: readFileSync(transport.cert) }),
          ...(transport.key !== undefined && { key: readFileSync(transport.key) }),
        };
  const scheme = 'plaintext' in transport ? 'http' : 'https';
  return new Promise((resolve, reject) => {
    const session = http2.connect(`${scheme}://127.0.0.1:${port}`, options);
    let serverSpokeHttp2 = false;
    let settled = false;
    const timer = setTimeout(() => finish(new Error(`no outcome of ${method} within 15 s`)), 15_000);
    function finish(outcome: RawOutcome | Error): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.destroy();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    }
    const refused = (error: Error & { code?: string }) =>
      finish({ answered: false, code: error.code ?? 'UNKNOWN', message: error.message, serverSpokeHttp2 });
    session.on('remoteSettings', () => {
      serverSpokeHttp2 = true;
    });
    session.on('error', refused);
    session.on('close', () =>
      finish({
        answered: false,
        code: 'CLOSED',
        message: 'the connection closed without an answer',
        serverSpokeHttp2,
      }),
    );
    const stream = session.request({
      ':method': 'POST',
      ':path': method,
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    let headerStatus: string | undefined;
    stream.on('response', (headers) => {
      const status = headers['grpc-status'];
      if (typeof status === 'string') headerStatus = status; // a trailers-only answer
    });
    stream.on('trailers', (trailers) => {
      const status = trailers['grpc-status'];
      finish({ answered: true, grpcStatus: typeof status === 'string' ? status : headerStatus });
    });
    stream.on('end', () => {
      if (headerStatus !== undefined) finish({ answered: true, grpcStatus: headerStatus });
    });
    stream.on('error', refused);
    stream.resume();
    stream.end(Buffer.alloc(5)); // one gRPC message: not compressed, length 0 (an empty request)
  });
}
