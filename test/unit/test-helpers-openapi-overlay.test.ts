// The loader of the vendor's API document: overlays (parsed strictly, applied so that a change
// finding nothing to change throws), `$ref` and `allOf` resolution, the OpenAPI 3.0 → JSON Schema
// conversion, on a small document of our own (test-api-conformance-overlays.test.ts has the real one).
import { join } from 'node:path';
import { applyOverlay, parseOverlay, readOverlay } from '../helpers/openapi-overlay';
import { resolveSchema, toJsonSchema, type OasDocument } from '../helpers/openapi-schema';
import { buildDocument, OVERLAY_DIR, responseFor } from '../helpers/vendor-openapi';
import { proxyOnly } from '../../scripts/setup-vendor-openapi';

function sampleDoc(): OasDocument {
  return {
    openapi: '3.0.3',
    paths: {
      '/things/{thing_id}': {
        get: {
          operationId: 'getThing',
          parameters: [{ name: 'page', in: 'query', schema: { type: 'integer' } }],
          responses: {
            '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
            '4XX': { $ref: '#/components/responses/Failure' },
          },
        },
        delete: { operationId: 'deleteThing', responses: { '204': { description: 'gone' } } },
      },
    },
    components: {
      schemas: {
        Thing: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            kind: { $ref: '#/components/schemas/Kind' },
            size: { type: 'object', properties: { cpu: { type: 'integer' } } },
          },
        },
        Kind: { type: 'string', enum: ['A', 'B'] },
        Error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } },
      },
      responses: {
        Failure: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    },
  };
}

function overlay(changes: string, extra = ''): string {
  return `overlay: test
base: sample
sources: { s: a source }
differences:
  - name: one
    says: a difference for the test
    source: [s]
${extra}    changes:
${changes}`;
}

describe('overlays', () => {
  test('each kind of change', () => {
    const doc = applyOverlay(
      sampleDoc(),
      parseOverlay(
        overlay(`      - define: Message
        as: { type: object, properties: { message: { type: string } } }
      - in: Thing
        property: name
        set: { type: string }
      - in: Thing
        property: title
        same-as: name
      - in: Thing
        property: name
        merge: { deprecated: true, x-replaced-by: title }
      - in: Thing.size
        property: cpu
        merge: { nullable: true }
      - in: Thing
        require: [id]
      - in: Kind
        merge: { enum: [A, B, C] }
      - operation: getThing
        status: '202'
        answers: { $ref: '#/components/schemas/Message' }
      - operation: deleteThing
        status: '200'
        answers: anything
      - operation: getThing
        query: page
        remove: true
      - operation: getThing
        query: tags
        set: { type: array, items: { type: string } }
      - add: renameThing
        method: POST
        path: /things/{thing_id}/rename
        body: { type: object, required: [name], properties: { name: { type: string } } }
        responses: { '200': { $ref: '#/components/schemas/Thing' }, '4XX': nothing }
      - operation: '*'
        status: 5XX
        answers: { $ref: '#/components/schemas/Error' }
`),
        'test',
      ),
    );
    const thing = doc.components.schemas.Thing!;
    expect(thing.properties!.title).toEqual({ type: 'string' });
    expect(thing.properties!.name).toEqual({ type: 'string', deprecated: true, 'x-replaced-by': 'title' });
    expect(thing.properties!.size!.properties!.cpu).toEqual({ type: 'integer', nullable: true });
    expect(thing.required).toEqual(['id']);
    expect(doc.components.schemas.Kind!.enum).toEqual(['A', 'B', 'C']);

    const document = buildDocument(doc, [], 'test');
    const get = document.find('GET', '/things/{x}')!;
    expect([...get.query.keys()]).toEqual(['tags']);
    expect(responseFor(get, 202)?.shape).toEqual({ kind: 'json', schema: doc.components.schemas.Message });
    expect(responseFor(get, 404)?.key).toBe('4XX');
    expect(responseFor(get, 503)?.key).toBe('5XX');
    expect(responseFor(get, 201)).toBeUndefined();
    expect(responseFor(document.find('DELETE', '/things/{thing_id}')!, 200)?.shape).toEqual({
      kind: 'anything',
    });
    expect(responseFor(document.find('DELETE', '/things/{thing_id}')!, 204)?.shape).toEqual({
      kind: 'nothing',
    });
    const rename = document.find('POST', '/things/{id}/rename')!;
    expect(rename.id).toBe('renameThing');
    expect(responseFor(rename, 400)?.shape).toEqual({ kind: 'nothing' });
    expect(sampleDoc().components.schemas.Thing!.properties!.name).toBeUndefined(); // input untouched
  });

  test('a path follows $refs into the components they name, at every step', () => {
    const doc = applyOverlay(
      sampleDoc(),
      parseOverlay(overlay(`      - in: Thing.kind\n        merge: { nullable: true }\n`), 'test'),
    );
    expect(doc.components.schemas.Kind).toEqual({ type: 'string', enum: ['A', 'B'], nullable: true });
    expect(doc.components.schemas.Thing!.properties!.kind).toEqual({ $ref: '#/components/schemas/Kind' });
  });

  test("the local cloud's overlay applies to a document that names a service's resources (the newest)", () => {
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    const integer = { type: 'integer' as const };
    // The newest document's shape: resources[] is `$ref: Resource`, whose spec is `$ref: ResourceSpec`.
    const newest: OasDocument = {
      openapi: '3.0.3',
      paths: {
        '/services/{service_id}': {
          get: {
            operationId: 'getService',
            responses: { '200': { content: { 'application/json': { schema: ref('Service') } } } },
          },
        },
      },
      components: {
        schemas: {
          Service: {
            type: 'object',
            properties: {
              service_id: { type: 'string' },
              resources: { type: 'array', items: ref('Resource') },
            },
          },
          Resource: { type: 'object', properties: { id: { type: 'string' }, spec: ref('ResourceSpec') } },
          ResourceSpec: { type: 'object', properties: { cpu_millis: integer, memory_gbs: integer } },
          Error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } },
        },
      },
    };
    const doc = applyOverlay(newest, readOverlay(join(OVERLAY_DIR, 'local-cloud-overlay.yaml')), 'current');
    expect(doc.components.schemas.ResourceSpec!.properties).toMatchObject({
      cpu_millis: { type: 'integer', nullable: true },
      memory_gbs: { type: 'integer', nullable: true },
    });
    expect(doc.components.schemas.Service!.properties!.paused).toEqual({ type: 'boolean' });
    expect(doc.components.schemas.Resource!.properties!.spec).toEqual(ref('ResourceSpec'));
  });

  test('a property on every object, and differences limited to a dialect', () => {
    const parsed = parseOverlay(
      overlay(
        `      - every-object: true
        property: extra
        set: { x-unknown-field: true }
`,
        '    dialects: [current]\n',
      ),
      'test',
    );
    const current = applyOverlay(sampleDoc(), parsed, 'current');
    expect(Object.keys(current.components.schemas.Thing!.properties!)).toContain('extra');
    expect(Object.keys(current.components.schemas.Thing!.properties!.size!.properties!)).toContain('extra');
    expect(Object.keys(current.components.schemas.Error!.properties!)).toContain('extra');
    expect(
      applyOverlay(sampleDoc(), parsed, 'seed').components.schemas.Thing!.properties!.extra,
    ).toBeUndefined();
  });

  test.each([
    [
      'a missing component',
      `      - in: Nothing\n        property: x\n        set: {}\n`,
      /no component schema Nothing/,
    ],
    [
      'a missing property',
      `      - in: Thing\n        property: x\n        merge: {}\n`,
      /Thing has no property x/,
    ],
    [
      'a missing operation',
      `      - operation: nope\n        status: '200'\n        answers: nothing\n`,
      /no operation nope/,
    ],
    ['a path through a $ref to nothing', `      - in: Thing.kind.x\n        merge: {}\n`, /nothing at \.x/],
    [
      'a merge beside a $ref',
      `      - in: Thing\n        property: kind\n        merge: { nullable: true }\n`,
      /is #\/components\/schemas\/Kind/,
    ],
    ['requiring an unknown field', `      - in: Thing\n        require: [nope]\n`, /no property nope/],
    [
      'adding an existing operation',
      `      - add: getThing\n        method: GET\n        path: /x\n        responses: {}\n`,
      /exists already/,
    ],
    [
      'removing a missing query',
      `      - operation: getThing\n        query: nope\n        remove: true\n`,
      /no query parameter nope/,
    ],
  ])('a change that finds nothing to change throws: %s', (_what, changes, message) => {
    expect(() => applyOverlay(sampleDoc(), parseOverlay(overlay(changes), 'test'))).toThrow(message);
  });

  test('an overlay is read strictly: unknown keys, unknown sources and duplicate names are refused', () => {
    expect(() =>
      parseOverlay(overlay(`      - in: Thing\n        property: x\n        sett: {}\n`), 't'),
    ).toThrow(/invalid/);
    expect(() =>
      parseOverlay(overlay(`      - define: X\n        as: {}\n`).replace('[s]', '[nope]'), 't'),
    ).toThrow(/unknown source nope/);
    const twice =
      overlay(`      - define: X\n        as: {}\n`) +
      '  - name: one\n    says: the same name again\n    source: [s]\n    changes: [{ define: Y, as: {} }]\n';
    expect(() => parseOverlay(twice, 't')).toThrow(/one twice/);
  });
});

describe('schemas', () => {
  const doc = sampleDoc();

  test('$ref resolved inline; allOf merged, nullable only when the parent or every member says so', () => {
    doc.components.schemas.Wrapped = {
      type: 'object',
      properties: {
        a: { allOf: [{ $ref: '#/components/schemas/Thing' }], deprecated: true },
        b: { allOf: [{ $ref: '#/components/schemas/Kind' }], nullable: true },
        c: { allOf: [{ type: 'object', nullable: true, properties: { x: { type: 'string' } } }] },
        d: {
          allOf: [
            { type: 'object', nullable: true, required: ['x'], properties: { x: { type: 'string' } } },
            { type: 'object', required: ['y'], properties: { y: { type: 'integer' } } },
          ],
        },
      },
    };
    const resolved = resolveSchema(doc, { $ref: '#/components/schemas/Wrapped' });
    const { a, b, c, d } = resolved.properties!;
    expect(a!.properties!.kind).toEqual({ type: 'string', enum: ['A', 'B'] });
    expect(a!.deprecated).toBe(true);
    expect(b).toEqual({ type: 'string', enum: ['A', 'B'], nullable: true });
    expect(c!.nullable).toBe(true);
    expect(d!.nullable).toBeUndefined();
    expect(d!.required).toEqual(['x', 'y']);
    expect(Object.keys(d!.properties!)).toEqual(['x', 'y']);
  });

  test('a recursive schema and an unknown $ref throw', () => {
    doc.components.schemas.Loop = {
      type: 'object',
      properties: { next: { $ref: '#/components/schemas/Loop' } },
    };
    expect(() => resolveSchema(doc, { $ref: '#/components/schemas/Loop' })).toThrow(/recursive/);
    expect(() => resolveSchema(doc, { $ref: '#/definitions/X' })).toThrow(/unresolvable/);
  });

  test('OpenAPI 3.0 to JSON Schema: nullable, closed objects, checked formats only, no annotations', () => {
    const schema = toJsonSchema(
      {
        type: 'object',
        description: 'dropped',
        required: ['when'],
        properties: {
          when: { type: 'string', format: 'date-time', example: 'x' },
          secret: { type: 'string', format: 'password' },
          kind: { type: 'string', enum: ['A'], nullable: true },
          usage: { type: 'object', nullable: true, properties: { n: { type: 'integer', nullable: true } } },
          either: { anyOf: [{ type: 'string' }, { type: 'integer' }], nullable: true },
          free: { type: 'object', 'x-anything': true },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
      { closed: true },
    );
    expect(schema).toEqual({
      type: 'object',
      required: ['when'],
      additionalProperties: false,
      properties: {
        when: { type: 'string', format: 'date-time' },
        secret: { type: 'string' },
        kind: { type: ['string', 'null'], enum: ['A', null] },
        usage: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: { n: { type: ['integer', 'null'] } },
        },
        either: { anyOf: [{ anyOf: [{ type: 'string' }, { type: 'integer' }] }, { type: 'null' }] },
        free: { type: 'object' },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
      },
    });
    expect(toJsonSchema({ type: 'object', properties: {} })).toEqual({ type: 'object', properties: {} });
  });
});

test('setup fetches through a module proxy only', () => {
  expect(proxyOnly('https://proxy.example,direct')).toBe('https://proxy.example');
  expect(proxyOnly('https://a.example|https://b.example|off')).toBe('https://a.example,https://b.example');
  expect(proxyOnly('direct')).toBeUndefined();
  expect(proxyOnly('off')).toBeUndefined();
});
