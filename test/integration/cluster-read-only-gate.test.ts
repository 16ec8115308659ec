// The read-only gate of an mTLS cluster's Web UI (cluster/read-only-gate.ts) on its own, in front of
// a stand-in frontend: an HTTP/2 TLS server that requires the cluster's client certificate, records
// every call that reaches it and answers with a message and trailers. Through the gate, called raw
// without any certificate, a read reaches it and its answer (message, trailers, a trailers-only
// error) comes back unchanged; a write is answered PERMISSION_DENIED and never reaches it. The real
// cluster's gate behind its Web UI is in cluster-mtls.test.ts. Needs `openssl` for the certificates.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureCertificates, TLS_SERVER_NAME } from '../../cluster/certificates';
import { REFUSED_MESSAGE, startReadOnlyGate } from '../../cluster/read-only-gate';
import { findFreePort } from '../../stack/ports';
import { GET_SYSTEM_INFO, opensslMissing, rawGrpcCall } from '../helpers/cluster-tls';
import { describeWithTools } from '../helpers/tool-requirements';

const WORKFLOW = '/temporal.api.workflowservice.v1.WorkflowService/';

describeWithTools('the Web UI’s read-only gate', opensslMissing(), () => {
  let dir: string;
  let frontend: http2.Http2SecureServer;
  let gate: { close: () => Promise<void> };
  let gatePort: number;
  const reached: string[] = [];
  const gateLog: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tideline-gate-'));
    const tls = await ensureCertificates(path.join(dir, 'tls'), process.env);
    frontend = http2.createSecureServer({
      cert: readFileSync(tls.serverCert),
      key: readFileSync(tls.serverKey),
      ca: readFileSync(tls.clientCa),
      requestCert: true,
      rejectUnauthorized: true,
    });
    frontend.on('stream', (stream, headers) => {
      const grpcPath = String(headers[':path']);
      reached.push(grpcPath);
      stream.resume();
      if (grpcPath.endsWith('/DescribeWorkflowExecution')) {
        stream.respond(
          {
            ':status': 200,
            'content-type': 'application/grpc',
            'grpc-status': '5',
            'grpc-message': 'not found',
          },
          { endStream: true },
        );
        return;
      }
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(Buffer.from([0, 0, 0, 0, 2, 8, 1])); // one message: field 1 = 1
    });
    await new Promise<void>((resolve) => frontend.listen(0, '127.0.0.1', resolve));
    gatePort = await findFreePort();
    gate = await startReadOnlyGate(
      {
        listenPort: gatePort,
        frontendPort: (frontend.address() as AddressInfo).port,
        serverName: TLS_SERVER_NAME,
        caFile: tls.serverCa,
        certFile: tls.clientCert,
        keyFile: tls.clientKey,
      },
      (line) => gateLog.push(line),
    );
  });

  afterAll(async () => {
    await gate?.close();
    await new Promise((resolve) => frontend?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  test('a read reaches the frontend with the client certificate; its answer comes back', async () => {
    expect(await rawGrpcCall(gatePort, { plaintext: true }, GET_SYSTEM_INFO)).toEqual({
      answered: true,
      grpcStatus: '0',
    });
    expect(reached).toContain(GET_SYSTEM_INFO);
    // The message itself passes through.
    const session = http2.connect(`http://127.0.0.1:${gatePort}`);
    try {
      const stream = session.request({
        ':method': 'POST',
        ':path': `${WORKFLOW}ListNamespaces`,
        'content-type': 'application/grpc',
        te: 'trailers',
      });
      stream.end(Buffer.alloc(5));
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      const trailers = await new Promise<http2.IncomingHttpHeaders>((resolve) =>
        stream.on('trailers', resolve),
      );
      await new Promise((resolve) => stream.on('close', resolve));
      expect([...Buffer.concat(chunks)]).toEqual([0, 0, 0, 0, 2, 8, 1]);
      expect(trailers['grpc-status']).toBe('0');
    } finally {
      session.close();
    }
  });

  test('a trailers-only error of the frontend comes back as it was', async () => {
    expect(await rawGrpcCall(gatePort, { plaintext: true }, `${WORKFLOW}DescribeWorkflowExecution`)).toEqual({
      answered: true,
      grpcStatus: '5',
    });
  });

  test('writes are answered PERMISSION_DENIED and never reach the frontend', async () => {
    const before = reached.length;
    for (const method of [
      'StartWorkflowExecution',
      'TerminateWorkflowExecution',
      'SignalWorkflowExecution',
      'ResetWorkflowExecution',
      'StartBatchOperation',
      'CreateSchedule',
    ]) {
      const outcome = await rawGrpcCall(gatePort, { plaintext: true }, `${WORKFLOW}${method}`);
      expect({ method, outcome }).toEqual({ method, outcome: { answered: true, grpcStatus: '7' } });
    }
    expect(reached.slice(before)).toEqual([]);
    expect(gateLog).toContain(`read-only gate: refused ${WORKFLOW}StartWorkflowExecution`);
    expect(REFUSED_MESSAGE).toMatch(/read-only/);
  });
});
