// The vendor's API document (tiger-cli v0.21.2's openapi.yaml, copied to .tools/vendor/ by
// scripts/setup-vendor-openapi.js) with the project's overlays applied, one document per dialect
// of the local cloud:
//   seed    = v0.21.2 + test/api-conformance/seed-dialect-overlay.yaml + local-cloud-overlay.yaml
//   current = v0.21.2 + test/api-conformance/current-dialect-overlay.yaml + local-cloud-overlay.yaml
// Each operation is indexed by method and path, so catalogue actions find theirs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { operations, type ActionName } from '../../cloud/operations';
import { ensureVendorOpenApi } from '../../scripts/setup-vendor-openapi';
import { allOperations, applyOverlay, readOverlay, type Overlay } from './openapi-overlay';
import {
  resolveParameter,
  resolveResponse,
  resolveSchema,
  type OasDocument,
  type OasOperation,
  type OasSchema,
} from './openapi-schema';

export type DocumentDialect = 'seed' | 'current';
export const DOCUMENT_DIALECTS: readonly DocumentDialect[] = ['seed', 'current'];

export const OVERLAY_DIR = join(__dirname, '..', 'api-conformance');
export const DIALECT_OVERLAYS: Readonly<Record<DocumentDialect, readonly string[]>> = {
  seed: ['seed-dialect-overlay.yaml', 'local-cloud-overlay.yaml'],
  current: ['current-dialect-overlay.yaml', 'local-cloud-overlay.yaml'],
};

/** What a status answers: no body, a body nobody reads, or JSON of a (resolved) schema. */
export type ResponseShape = { kind: 'nothing' } | { kind: 'anything' } | { kind: 'json'; schema: OasSchema };

export interface DocumentOperation {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  /** Keyed by the document's status keys: `200`, `4XX`, `default`. */
  readonly responses: ReadonlyMap<string, ResponseShape>;
  /** Query parameters and their (resolved) schemas. */
  readonly query: ReadonlyMap<string, OasSchema>;
}

export interface DialectDocument {
  readonly label: string;
  readonly doc: OasDocument;
  readonly operations: readonly DocumentOperation[];
  /** The operation at this method and path (`{…}` placeholders match whatever they are called). */
  find(method: string, path: string): DocumentOperation | undefined;
  /** The operation of a catalogue action, matched by method and path. */
  forAction(action: ActionName): DocumentOperation | undefined;
}

export type VendorDocument =
  { available: true; path: string; doc: OasDocument } | { available: false; reason: string };

let vendor: VendorDocument | undefined;

/** The pinned vendor document, fetched by the setup script when missing; unavailable without Go. */
export function vendorDocument(): VendorDocument {
  if (vendor) return vendor;
  const ensured = ensureVendorOpenApi({ log: () => {} });
  vendor =
    'unavailable' in ensured
      ? { available: false, reason: `tiger-cli's openapi.yaml is not available: ${ensured.unavailable}` }
      : {
          available: true,
          path: ensured.path,
          doc: parseYaml(readFileSync(ensured.path, 'utf8')) as OasDocument,
        };
  return vendor;
}

/** Why the vendor document cannot be had here (for describeWithTools), or undefined when it can. */
export function vendorDocumentMissing(): string | undefined {
  const found = vendorDocument();
  return found.available ? undefined : found.reason;
}

const byDialect = new Map<DocumentDialect, DialectDocument>();

/** The dialect's document; throws when the vendor document is unavailable (check vendorDocument). */
export function dialectDocument(dialect: DocumentDialect): DialectDocument {
  const cached = byDialect.get(dialect);
  if (cached) return cached;
  const base = vendorDocument();
  if (!base.available) throw new Error(base.reason);
  const overlays = DIALECT_OVERLAYS[dialect].map((file) => readOverlay(join(OVERLAY_DIR, file)));
  const label = `tiger-cli v0.21.2 + ${DIALECT_OVERLAYS[dialect].join(' + ')} (${dialect})`;
  const built = buildDocument(base.doc, overlays, label, dialect);
  byDialect.set(dialect, built);
  return built;
}

function pathKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/\{[^}]*\}/g, '{}')}`;
}

/** The document with the overlays applied in order, indexed for lookups. */
export function buildDocument(
  base: OasDocument,
  overlays: readonly Overlay[],
  label: string,
  dialect?: DocumentDialect,
): DialectDocument {
  const doc = overlays.reduce((current, overlay) => applyOverlay(current, overlay, dialect), base);
  const list = allOperations(doc).map(({ method, path, operation }) =>
    documentOperation(doc, method, path, operation),
  );
  const index = new Map(list.map((op) => [pathKey(op.method, op.path), op]));
  return {
    label,
    doc,
    operations: list,
    find: (method, path) => index.get(pathKey(method, path)),
    forAction: (action) => index.get(pathKey(operations[action].method, operations[action].path)),
  };
}

function documentOperation(
  doc: OasDocument,
  method: string,
  path: string,
  op: OasOperation,
): DocumentOperation {
  const id = op.operationId ?? `${method} ${path}`;
  const responses = new Map<string, ResponseShape>();
  for (const [status, raw] of Object.entries(op.responses ?? {})) {
    const response = resolveResponse(doc, raw);
    const schema = response.content?.['application/json']?.schema;
    if (response['x-body'] === 'anything') responses.set(status, { kind: 'anything' });
    else if (schema === undefined) responses.set(status, { kind: 'nothing' });
    else responses.set(status, { kind: 'json', schema: resolveSchema(doc, schema) });
  }
  const query = new Map<string, OasSchema>();
  for (const raw of op.parameters ?? []) {
    const parameter = resolveParameter(doc, raw);
    if (parameter.in === 'query' && parameter.name !== undefined) {
      query.set(parameter.name, resolveSchema(doc, parameter.schema ?? {}));
    }
  }
  return { id, method, path, responses, query };
}

/** The document's entry for an HTTP status: the exact code, else its range (`4XX`), else `default`. */
export function responseFor(
  op: DocumentOperation,
  status: number,
): { key: string; shape: ResponseShape } | undefined {
  for (const key of [String(status), `${Math.floor(status / 100)}XX`, 'default']) {
    const shape = op.responses.get(key);
    if (shape) return { key, shape };
  }
  return undefined;
}

/** Success statuses (2xx) the operation documents. */
export function successStatuses(op: DocumentOperation): number[] {
  return [...op.responses.keys()].filter((key) => /^2\d\d$/.test(key)).map(Number);
}
