import { mkdtempSync, rmSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import type { LogLevel, LogMetadata, Logger } from '@temporalio/common';
import { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger, type LogEntry } from '@temporalio/worker';
import { createRedactingLogger, type RedactingLogger } from '../../worker/redacting-logger';
import { runtimeOptions } from '../../worker/runtime';
import { resolveWorkflowSource } from '../../worker/workflow-source';

function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const log = (level: LogLevel, message: string, meta?: LogMetadata): void => {
    lines.push(`${level} ${message} ${inspect(meta, { depth: 10 })}`);
  };
  const logger: Logger = {
    log,
    trace: (m, meta) => log('TRACE', m, meta),
    debug: (m, meta) => log('DEBUG', m, meta),
    info: (m, meta) => log('INFO', m, meta),
    warn: (m, meta) => log('WARN', m, meta),
    error: (m, meta) => log('ERROR', m, meta),
  };
  return { logger, lines };
}

describe('redacting logger', () => {
  test('scrubs known secrets from messages, metadata and errors, and secret-named fields', () => {
    const { logger, lines } = recordingLogger();
    const redacting = createRedactingLogger(logger, ['SK-123456', undefined, '']);
    const timestamp = Symbol.for('log_timestamp');
    redacting.warn('call failed with SK-123456', {
      [timestamp]: 42n,
      error: ApplicationFailure.nonRetryable('auth SK-123456 rejected', 'CLOUD_API_UNAUTHORIZED'),
      nested: { url: 'https://u:SK-123456@x', initial_password: 'hunter2', count: 3 },
    });
    redacting.info('plain message');
    const [first, second] = lines;
    expect(first).not.toContain('SK-123456');
    expect(first).not.toContain('hunter2');
    expect(first).toContain('[REDACTED]');
    expect(first).toContain('CLOUD_API_UNAUTHORIZED');
    expect(first).toContain('count: 3');
    expect(first).toContain('42n'); // SDK bookkeeping under symbol keys survives
    expect(second).toBe('INFO plain message undefined');
  });
});

/** Metadata that counts how often its fields are read: scrubbing reads every one. */
function watchedMeta(): { meta: LogMetadata; reads: () => number } {
  let reads = 0;
  const meta: LogMetadata = {};
  Object.defineProperty(meta, 'workflowId', {
    enumerable: true,
    get: () => {
      reads++;
      return 'wf-SK-123456';
    },
  });
  return { meta, reads: () => reads };
}

describe('redacting logger levels', () => {
  test('lines below the inner logger’s level are neither scrubbed nor passed on', () => {
    const entries: LogEntry[] = [];
    const inner = new DefaultLogger('INFO', (entry) => entries.push(entry));
    const redacting = createRedactingLogger(inner, ['SK-123456']);
    expect(redacting.level).toBe('INFO');
    const watched = watchedMeta();
    redacting.trace('activation SK-123456', watched.meta);
    redacting.debug('activation SK-123456', watched.meta);
    redacting.log('TRACE', 'activation SK-123456', watched.meta);
    expect(watched.reads()).toBe(0);
    expect(entries).toHaveLength(0);

    redacting.info('started SK-123456', watched.meta);
    redacting.log('ERROR', 'failed SK-123456', watched.meta);
    expect(watched.reads()).toBe(2);
    expect(entries.map((e) => [e.level, e.message, e.meta])).toEqual([
      ['INFO', 'started [REDACTED]', { workflowId: 'wf-[REDACTED]' }],
      ['ERROR', 'failed [REDACTED]', { workflowId: 'wf-[REDACTED]' }],
    ]);
  });

  test('every printed level is scrubbed, down to TRACE when the output prints TRACE', () => {
    const entries: LogEntry[] = [];
    const redacting = createRedactingLogger(new DefaultLogger('TRACE', (entry) => entries.push(entry)), [
      'SK-123456',
    ]);
    const levels = ['trace', 'debug', 'info', 'warn', 'error'] as const;
    for (const level of levels)
      redacting[level](`${level} SK-123456`, { password: 'hunter2', url: 'SK-123456' });
    expect(entries).toHaveLength(5);
    for (const entry of entries) {
      expect(inspect(entry)).not.toMatch(/SK-123456|hunter2/);
      expect(entry.meta).toEqual({ password: '[REDACTED]', url: '[REDACTED]' });
    }
  });

  test('an explicit level wins; a logger that states none gets every line, scrubbed', () => {
    const { logger, lines } = recordingLogger();
    const quiet = createRedactingLogger(logger, ['SK-123456'], { level: 'WARN' });
    quiet.info('dropped');
    quiet.warn('kept SK-123456');
    expect(lines).toEqual(['WARN kept [REDACTED] undefined']);
    const all = createRedactingLogger(logger, ['SK-123456']);
    expect(all.level).toBe('TRACE');
    all.trace('trace SK-123456');
    expect(lines[1]).toBe('TRACE trace [REDACTED] undefined');
  });
});

describe('runtime options', () => {
  test('shutdown on SIGINT and SIGTERM; Prometheus only when an address is given', () => {
    const plain = runtimeOptions({});
    expect(plain.shutdownSignals).toEqual(['SIGINT', 'SIGTERM']);
    expect(plain.telemetryOptions).toBeUndefined();
    const withMetrics = runtimeOptions({ metricsAddress: '127.0.0.1:9464' });
    expect(withMetrics.telemetryOptions?.metrics).toEqual({ prometheus: { bindAddress: '127.0.0.1:9464' } });
  });

  test('the worker’s logger drops TRACE and DEBUG before scrubbing them, as its output prints INFO up', () => {
    expect((runtimeOptions({}).logger as RedactingLogger).level).toBe('INFO');
  });
});

describe('workflow source', () => {
  let dist: string;
  beforeEach(() => {
    dist = mkdtempSync(path.join(tmpdir(), 'tideline-dist-'));
    mkdirSync(path.join(dist, 'workflows'));
    writeFileSync(path.join(dist, 'workflows', 'index.js'), '');
  });
  afterEach(() => rmSync(dist, { recursive: true, force: true }));

  const setTime = (file: string, seconds: number): void => utimesSync(file, seconds, seconds);

  test('uses a bundle newer than the compiled code', () => {
    const bundle = path.join(dist, 'workflow-bundle.js');
    writeFileSync(bundle, '');
    setTime(path.join(dist, 'workflows', 'index.js'), 1_000);
    setTime(bundle, 2_000);
    const resolved = resolveWorkflowSource({ bundlePath: bundle, workflowsPath: '/w' });
    expect(resolved.source).toEqual({ workflowBundle: { codePath: bundle } });
  });

  test('an installed package runs its bundle whatever times npm gave the files', () => {
    const installed = path.join(dist, 'node_modules', 'tideline', 'dist');
    mkdirSync(path.join(installed, 'workflows'), { recursive: true });
    const bundle = path.join(installed, 'workflow-bundle.js');
    writeFileSync(bundle, '');
    writeFileSync(path.join(installed, 'workflows', 'index.js'), '');
    setTime(bundle, 1_000);
    setTime(path.join(installed, 'workflows', 'index.js'), 2_000);
    const resolved = resolveWorkflowSource({ bundlePath: bundle, workflowsPath: '/w' });
    expect(resolved.source).toEqual({ workflowBundle: { codePath: bundle } });
    expect(resolved.reason).toMatch(/installed package/);
  });

  test('bundles at start when the bundle is stale or missing', () => {
    const bundle = path.join(dist, 'workflow-bundle.js');
    expect(resolveWorkflowSource({ bundlePath: bundle, workflowsPath: '/w' }).source).toEqual({
      workflowsPath: '/w',
    });
    writeFileSync(bundle, '');
    setTime(bundle, 1_000);
    setTime(path.join(dist, 'workflows', 'index.js'), 2_000);
    const stale = resolveWorkflowSource({ bundlePath: bundle, workflowsPath: '/w' });
    expect(stale.source).toEqual({ workflowsPath: '/w' });
    expect(stale.reason).toMatch(/older than the compiled code/);
  });
});
