// The read-only gate between an mTLS cluster's Web UI and its frontend. The Web UI server holds no
// certificate: it calls this gate (plain HTTP/2 on 127.0.0.1), and the gate forwards to the
// frontend with the cluster's client certificate only the calls Temporal itself classes as
// read-only (go.temporal.io/server common/api/metadata.go, Access: ReadOnly). Every other call —
// start, signal, terminate, reset, update, batch operations, schedules, namespace changes — is
// answered PERMISSION_DENIED without reaching the frontend. So the Web UI, and any local process
// that reaches the UI's or the gate's port, can read the cluster and change nothing, whatever the
// UI server's own `disableWriteActions` check lets through.
import http2 from 'node:http2';
import { readFileSync } from 'node:fs';

const WORKFLOW_SERVICE = '/temporal.api.workflowservice.v1.WorkflowService/';
const OPERATOR_SERVICE = '/temporal.api.operatorservice.v1.OperatorService/';

/** The read-only methods of the server's method table; anything else is refused. */
const READ_ONLY_WORKFLOW_METHODS = [
  'DescribeNamespace',
  'ListNamespaces',
  'GetWorkflowExecutionHistory',
  'GetWorkflowExecutionHistoryReverse',
  'ListOpenWorkflowExecutions',
  'ListClosedWorkflowExecutions',
  'ListWorkflowExecutions',
  'ListArchivedWorkflowExecutions',
  'ScanWorkflowExecutions',
  'CountWorkflowExecutions',
  'GetSearchAttributes',
  'QueryWorkflow', // queries cannot change a workflow (the SDK refuses commands in a query handler)
  'DescribeWorkflowExecution',
  'DescribeTaskQueue',
  'GetClusterInfo',
  'GetSystemInfo',
  'ListTaskQueuePartitions',
  'DescribeSchedule',
  'ListScheduleMatchingTimes',
  'ListSchedules',
  'GetWorkerBuildIdCompatibility',
  'GetWorkerVersioningRules',
  'GetWorkerTaskReachability',
  'DescribeBatchOperation',
  'ListBatchOperations',
  'DescribeDeployment',
  'ListDeployments',
  'GetDeploymentReachability',
  'GetCurrentDeployment',
  'DescribeWorkerDeploymentVersion',
  'DescribeWorkerDeployment',
  'ListWorkerDeployments',
  'DescribeWorkflowRule',
  'ListWorkflowRules',
  'ListWorkers',
  'DescribeWorker',
  'FetchWorkerConfig',
] as const;

const READ_ONLY_PATHS: ReadonlySet<string> = new Set([
  ...READ_ONLY_WORKFLOW_METHODS.map((method) => `${WORKFLOW_SERVICE}${method}`),
  `${OPERATOR_SERVICE}ListSearchAttributes`,
  '/grpc.health.v1.Health/Check',
]);

/** True for a gRPC `:path` the gate forwards. */
export function isReadOnlyCall(grpcPath: string): boolean {
  return READ_ONLY_PATHS.has(grpcPath);
}

/** What the gate daemon reads from its file (written 0600 by `cluster up`): ports and file paths only. */
export interface ReadOnlyGateConfig {
  /** The loopback port the gate listens on (the Web UI's temporalGrpcAddress). */
  listenPort: number;
  /** The frontend's loopback port and the name its certificate is for. */
  frontendPort: number;
  serverName: string;
  /** The server CA, the client certificate and its key (cluster/certificates.ts). */
  caFile: string;
  certFile: string;
  keyFile: string;
}

export const REFUSED_MESSAGE =
  'the cluster Web UI is read-only (tideline cluster --mtls): use a client with a certificate';

// HTTP/2 headers a proxy must not copy from one connection to the other.
const HOP_HEADERS = new Set([
  ':status',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
]);

function forwardable(headers: http2.IncomingHttpHeaders): http2.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_HEADERS.has(name)));
}

/** Starts the gate; resolves once it listens. */
export async function startReadOnlyGate(
  config: ReadOnlyGateConfig,
  log: (line: string) => void,
): Promise<{ close: () => Promise<void> }> {
  const tls = {
    ca: readFileSync(config.caFile),
    cert: readFileSync(config.certFile),
    key: readFileSync(config.keyFile),
    servername: config.serverName,
  };
  let upstream: http2.ClientHttp2Session | undefined;
  const frontend = (): http2.ClientHttp2Session => {
    if (upstream === undefined || upstream.closed || upstream.destroyed) {
      const session = http2.connect(`https://127.0.0.1:${config.frontendPort}`, tls);
      session.on('error', (error) => log(`read-only gate: frontend connection: ${error.message}`));
      session.on('close', () => {
        if (upstream === session) upstream = undefined;
      });
      upstream = session;
    }
    return upstream;
  };

  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    const grpcPath = String(headers[':path'] ?? '');
    if (!isReadOnlyCall(grpcPath)) {
      log(`read-only gate: refused ${grpcPath.slice(0, 200)}`);
      stream.respond(
        {
          ':status': 200,
          'content-type': 'application/grpc',
          'grpc-status': '7',
          'grpc-message': REFUSED_MESSAGE,
        },
        { endStream: true },
      );
      stream.resume();
      return;
    }
    const request = frontend().request({ ...forwardable(headers), ':authority': config.serverName });
    let trailers: http2.OutgoingHttpHeaders = {};
    request.on('response', (response) => {
      if (response['grpc-status'] !== undefined) {
        // A trailers-only answer (an error): its headers are the whole answer.
        stream.respond(forwardable(response), { endStream: true });
        return;
      }
      stream.respond(forwardable(response), { waitForTrailers: true });
      request.pipe(stream);
    });
    request.on('trailers', (received) => {
      trailers = forwardable(received);
    });
    stream.on('wantTrailers', () => stream.sendTrailers(trailers));
    request.on('error', (error) => {
      if (!stream.headersSent)
        stream.respond(
          {
            ':status': 200,
            'content-type': 'application/grpc',
            'grpc-status': '14',
            'grpc-message': error.message,
          },
          { endStream: true },
        );
      else stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    });
    stream.on('close', () => {
      if (!request.closed) request.close(http2.constants.NGHTTP2_CANCEL);
    });
    stream.pipe(request);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.listenPort, '127.0.0.1', () => resolve());
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        upstream?.close();
        server.close(() => resolve());
      }),
  };
}
