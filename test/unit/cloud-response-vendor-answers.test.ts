// Property-based: for every operation of the vendor's API document (tiger-cli v0.21.2 with the
// overlays of test/api-conformance/, in both dialects) that has a catalogue action, many answers are
// generated from each documented success status's schema — nulls where nullable, optional fields
// absent, enum values the document does not list, unknown extra fields, empty lists — and
// tideline's client must read every one (interpretAnswer with the catalogue's definition) without
// CLOUD_API_INVALID_RESPONSE, keeping every documented field and filling both names of a renamed
// one. The negative cases show that the property, and the client, can fail.
import fc from 'fast-check';
import { z } from 'zod';
import { answerObject } from '../../cloud/answer-schemas';
import { isCloudApiError } from '../../cloud/errors';
import { ACTION_NAMES, operations, type ActionName, type OperationDef } from '../../cloud/operations';
import { interpretAnswer } from '../../cloud/response';
import { onUnknownValue, type UnknownValueListener } from '../../cloud/unknown-values';
import { valueArbitrary } from '../helpers/answer-arbitrary';
import { expectReadBack } from '../helpers/answer-read-back';
import { describeWithTools } from '../helpers/tool-requirements';
import {
  DOCUMENT_DIALECTS,
  dialectDocument,
  successStatuses,
  vendorDocumentMissing,
  type DocumentOperation,
  type ResponseShape,
} from '../helpers/vendor-openapi';

/** Answers per operation, status and dialect; the seed makes a failure reproducible. */
const SAMPLES = 200;
const SEED = 20_260_820;

let previousListener: UnknownValueListener | undefined;
beforeAll(() => {
  // Generated enum values the document does not list would each be reported once; not here.
  previousListener = onUnknownValue(() => {});
});
afterAll(() => {
  if (previousListener) onUnknownValue(previousListener);
});

function read(action: ActionName, def: OperationDef, status: number, body: unknown): unknown {
  const text = body === undefined ? '' : JSON.stringify(body);
  return interpretAnswer({ status, headers: {}, text }, { action, def, secrets: [] });
}

function bodies(shape: ResponseShape): fc.Arbitrary<unknown> {
  if (shape.kind === 'json') return valueArbitrary(shape.schema);
  if (shape.kind === 'anything') return fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined });
  return fc.constant(undefined);
}

/** The property for one operation and status; throws fast-check's report on a counterexample. */
function assertReadable(
  action: ActionName,
  def: OperationDef,
  status: number,
  shape: ResponseShape,
  seed: number,
): void {
  fc.assert(
    fc.property(bodies(shape), (body) => {
      const parsed = read(action, def, status, body);
      if (shape.kind === 'json' && def.response !== undefined) expectReadBack(body, parsed, shape.schema);
      else expect(parsed).toBeUndefined();
    }),
    { seed, numRuns: SAMPLES },
  );
}

/** The message of the failure fast-check found (its report keeps the failure as `cause`). */
function propertyFailure(run: () => void): string {
  try {
    run();
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? cause.message : (error as Error).message;
  }
  throw new Error('the property held');
}

interface Case {
  name: string;
  action: ActionName;
  op: DocumentOperation;
  status: number;
  shape: ResponseShape;
}

function casesOf(dialect: (typeof DOCUMENT_DIALECTS)[number]): Case[] {
  const document = dialectDocument(dialect);
  return ACTION_NAMES.flatMap((action) => {
    const op = document.forAction(action);
    if (!op) throw new Error(`${action} has no operation in the ${dialect} document`);
    return successStatuses(op).map((status) => ({
      name: `${action} ${status} (${op.id})`,
      action,
      op,
      status,
      shape: op.responses.get(String(status))!,
    }));
  });
}

describeWithTools('answers generated from the vendor document', vendorDocumentMissing(), () => {
  describe.each(DOCUMENT_DIALECTS)('%s dialect', (dialect) => {
    const cases = casesOf(dialect);

    test('covers every catalogue action', () => {
      expect(new Set(cases.map((c) => c.action))).toEqual(new Set(ACTION_NAMES));
    });

    test.each(cases.map((c, index) => [c.name, c, index] as const))(
      `%s: ${SAMPLES} answers are read`,
      (_name, c, index) => {
        assertReadable(c.action, operations[c.action], c.status, c.shape, SEED + index);
      },
    );
  });

  describe('renamed fields come out under both names', () => {
    const service = { service_id: 'svc0000001', status: 'READY' };
    const endpoint = { host: 'h.example', port: 5432, vpc_id: '42' };

    test('a service with only vpc_endpoint, or only vpcEndpoint', () => {
      for (const sent of [{ vpc_endpoint: endpoint }, { vpcEndpoint: endpoint }]) {
        const parsed = read('service.get', operations['service.get'], 200, { ...service, ...sent });
        expect(parsed).toMatchObject({ vpc_endpoint: endpoint, vpcEndpoint: endpoint });
      }
    });

    test('a logs page with only last_cursor; auth info with only api_key', () => {
      const page = read('service.logs', operations['service.logs'], 200, { logs: null, last_cursor: 'c1' });
      expect(page).toEqual({ last_cursor: 'c1', lastCursor: 'c1' });
      const key = {
        public_key: 'pk',
        name: 'k',
        created: '2025-01-01T00:00:00Z',
        project: { id: 'p', name: 'n', plan_type: 'FREE' },
        issuing_user: { id: 'u', name: 'U', email: 'u@example.com' },
      };
      const info = read('auth.info', operations['auth.info'], 200, { type: 'apiKey', api_key: key });
      expect(info).toEqual({ type: 'apiKey', api_key: key, apiKey: key });
    });
  });

  describe('the checks can fail', () => {
    const logsShape = dialectDocument('current').forAction('service.logs')!.responses.get('200')!;
    const serviceShape = dialectDocument('current').forAction('service.get')!.responses.get('200')!;

    function invalid(action: ActionName, body: unknown): string {
      try {
        read(action, operations[action], operations[action].successStatus, body);
      } catch (error) {
        if (isCloudApiError(error) && error.code === 'CLOUD_API_INVALID_RESPONSE') return error.message;
        throw error;
      }
      throw new Error(`${action} read the broken answer without complaint`);
    }

    test('a log entry without its timestamp (required in the document and the model) is refused', () => {
      if (logsShape.kind !== 'json') throw new Error('logs answer JSON');
      const withEntries = valueArbitrary(logsShape.schema).filter(
        (page) =>
          Array.isArray((page as { entries?: unknown }).entries) &&
          (page as { entries: unknown[] }).entries.length > 0,
      );
      fc.assert(
        fc.property(withEntries, (page) => {
          const entries = (page as { entries: Record<string, unknown>[] }).entries;
          delete entries[0]!.timestamp;
          expect(invalid('service.logs', page)).toMatch(/entries\[0\]\.timestamp/);
        }),
        { seed: SEED, numRuns: 50 },
      );
    });

    test('a field of the wrong type is refused, naming it', () => {
      expect(invalid('service.get', { service_id: 42 })).toMatch(/service_id/);
      expect(invalid('project.list', [{ id: 'p1' }])).toMatch(/\[0\]\.name/);
      expect(invalid('replicaSet.list', [{ nodes: 'two' }])).toMatch(/\[0\]\.nodes/);
    });

    test('a model that drops a documented field fails the property', () => {
      if (serviceShape.kind !== 'json') throw new Error('service answers JSON');
      const forgetful: OperationDef = {
        ...operations['service.get'],
        response: answerObject({ service_id: z.string().optional() }),
      };
      expect(
        propertyFailure(() => assertReadable('service.get', forgetful, 200, serviceShape, SEED)),
      ).toMatch(/^\w+: dropped on reading$/);
    });

    test('a model that reads a renamed field under one name only fails the property', () => {
      if (serviceShape.kind !== 'json') throw new Error('service answers JSON');
      const { vpc_endpoint, vpcEndpoint } = serviceShape.schema.properties ?? {};
      const endpoint = answerObject({
        host: z.string().optional(),
        port: z.number().optional(),
        vpc_id: z.string().optional(),
      });
      const oneName: OperationDef = {
        ...operations['service.get'],
        // Both names known, but no alias pair: whichever came is not copied to the other.
        response: answerObject({ vpc_endpoint: endpoint.optional(), vpcEndpoint: endpoint.optional() }),
      };
      const shape: ResponseShape = {
        kind: 'json',
        schema: { type: 'object', properties: { vpc_endpoint: vpc_endpoint!, vpcEndpoint: vpcEndpoint! } },
      };
      expect(propertyFailure(() => assertReadable('service.get', oneName, 200, shape, SEED))).toMatch(
        /^(vpc_endpoint|vpcEndpoint): dropped on reading$/,
      );
    });

    test('a closed enum fails on the values the generator adds to the document', () => {
      if (serviceShape.kind !== 'json') throw new Error('service answers JSON');
      const closed: OperationDef = {
        ...operations['service.get'],
        response: answerObject({ status: z.enum(['READY']).optional(), service_type: z.string().optional() }),
      };
      expect(propertyFailure(() => assertReadable('service.get', closed, 200, serviceShape, SEED))).toMatch(
        /breaks the response schema: status: /,
      );
    });
  });
});
