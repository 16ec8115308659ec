// The overlays of test/api-conformance/ on tiger-cli v0.21.2's API document: the differences each one
// records (a new one is a deliberate change here), and what the seed and current dialects' documents
// then say about the fields and operations the local cloud and the typed client rely on.
import { join } from 'node:path';
import { readOverlay } from '../helpers/openapi-overlay';
import { resolveSchema } from '../helpers/openapi-schema';
import { describeWithTools } from '../helpers/tool-requirements';
import {
  dialectDocument,
  OVERLAY_DIR,
  responseFor,
  vendorDocumentMissing,
  type DialectDocument,
} from '../helpers/vendor-openapi';

test('the differences each overlay records (a new one is a deliberate change here)', () => {
  const names = (file: string) => {
    const read = readOverlay(join(OVERLAY_DIR, file));
    return [...read.differences.map((d) => d.name), ...read.recorded.map((r) => `(${r.name})`)];
  };
  expect(names('current-dialect-overlay.yaml')).toEqual([
    'vpc-endpoint-renamed',
    'service-metrics',
    'logs-cursor-renamed',
    'auth-info-key-renamed',
    'service-rename',
    'logs-filters',
    'vpc-rename-answers-message',
    'update-password-200',
    'replica-set-resize-answers-message',
    'go-slices-may-be-null',
    'required-answer-fields',
    'metric-gaps-are-null',
    '(error-details-undocumented)',
    '(deprecated-enum-values)',
    '(request-constraints)',
    '(path-parameter-formats)',
    '(bearer-auth)',
    '(preview-marker)',
    '(logout-without-token)',
    '(named-components)',
    '(unknown-fields)',
  ]);
  expect(names('seed-dialect-overlay.yaml')).toEqual([
    'neutraldb',
    'vpc-endpoint-members',
    'service-metrics',
    'service-rename',
  ]);
  expect(names('local-cloud-overlay.yaml')).toEqual([
    'paused',
    'shared-sizes-null',
    'server-errors',
    'unknown-field-stand-in',
  ]);
});

describeWithTools("the overlays on tiger-cli v0.21.2's document", vendorDocumentMissing(), () => {
  const schemaOf = (document: DialectDocument, name: string) =>
    resolveSchema(document.doc, { $ref: `#/components/schemas/${name}` });

  test('current dialect: renamed fields, nullable metrics and lists, rename, filters, messages', () => {
    const current = dialectDocument('current');
    const service = schemaOf(current, 'Service');
    expect(service.properties!.vpc_endpoint!.properties).toEqual(
      expect.objectContaining({
        host: { type: 'string' },
        port: { type: 'integer' },
        vpc_id: { type: 'string' },
      }),
    );
    expect(service.properties!.vpcEndpoint!['x-replaced-by']).toBe('vpc_endpoint');
    expect(service.properties!.vpcEndpoint!.nullable).toBeUndefined();
    expect(service.properties!.metrics!.nullable).toBe(true);
    expect(service.properties!.metrics!.properties!.milli_cpu).toEqual({ type: 'integer', nullable: true });
    expect(service.properties!.resources!.nullable).toBe(true);
    expect(service.properties!.resources!.items!.properties!.spec!.properties!.cpu_millis!.nullable).toBe(
      true,
    );
    expect(service.properties!.paused).toEqual({ type: 'boolean' });
    expect(service.required).toEqual([
      'service_id',
      'project_id',
      'name',
      'region_code',
      'service_type',
      'created',
      'status',
      'resources',
    ]);
    expect(schemaOf(current, 'ServiceLogs').properties!.lastCursor!['x-replaced-by']).toBe('last_cursor');
    expect(schemaOf(current, 'ServiceLogs').properties!.logs!.nullable).toBe(true);
    expect(schemaOf(current, 'AuthInfo').properties!.apiKey!['x-replaced-by']).toBe('api_key');
    expect(schemaOf(current, 'AuthInfo').properties!.api_key!.required).toEqual(
      schemaOf(current, 'AuthInfo').properties!.apiKey!.required,
    );
    expect(current.find('POST', '/projects/{p}/services/{s}/rename')?.id).toBe('renameService');
    const logs = current.find('GET', '/projects/{p}/services/{s}/logs')!;
    expect(logs.query.get('search')).toEqual({
      type: 'array',
      items: { type: 'string', minLength: 1, pattern: '\\S' },
    });
    expect(logs.query.has('page')).toBe(false);
    const message = { kind: 'json', schema: schemaOf(current, 'Message') };
    expect(responseFor(current.find('POST', '/projects/{p}/vpcs/{v}/rename')!, 200)?.shape).toEqual(message);
    expect(
      responseFor(current.find('POST', '/projects/{p}/services/{s}/replicaSets/{r}/resize')!, 202)?.shape,
    ).toEqual(message);
    const password = current.find('POST', '/projects/{p}/services/{s}/updatePassword')!;
    expect(responseFor(password, 200)?.shape).toEqual({ kind: 'anything' });
    expect(responseFor(password, 204)?.shape).toEqual({ kind: 'nothing' });
    expect(responseFor(password, 500)?.key).toBe('5XX');
    // The API still sends `details`, which the newest document no longer lists.
    expect(schemaOf(current, 'Error').properties!.details).toMatchObject({ type: 'string' });
  });

  test("seed dialect: spec.md's NEUTRALDB, vpcEndpoint's members and metrics; no current-only change", () => {
    const seed = dialectDocument('seed');
    const service = schemaOf(seed, 'Service');
    expect(service.properties!.service_type!.enum).toEqual(['NEUTRALDB', 'POSTGRES', 'VECTOR']);
    expect(Object.keys(service.properties!.vpcEndpoint!.properties!)).toEqual(['host', 'port', 'vpc_id']);
    expect(service.properties!.metrics!.nullable).toBeUndefined();
    expect(service.properties!.vpc_endpoint).toBeUndefined();
    expect(service.properties!.x_tideline_extra).toBeUndefined();
    expect(service.required).toBeUndefined();
    const rename = seed.find('POST', '/projects/{p}/vpcs/{v}/rename')!;
    expect(responseFor(rename, 200)?.shape).toEqual({ kind: 'json', schema: schemaOf(seed, 'VPC') });
  });
});
