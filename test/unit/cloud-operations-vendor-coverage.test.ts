// Which operations of the vendor's API document (tiger-cli v0.21.2 with the overlays of
// test/api-conformance/) tideline's catalogue covers, matched by method and path: every catalogue action
// has its operation, the statuses agree, and the operations left out are exactly the ones the
// docs/local-cloud.md lists, so a new operation in the document shows up here.
import { ACTION_NAMES, operations } from '../../cloud/operations';
import type { z } from 'zod';
import { describeWithTools } from '../helpers/tool-requirements';
import {
  DOCUMENT_DIALECTS,
  dialectDocument,
  successStatuses,
  vendorDocument,
  vendorDocumentMissing,
} from '../helpers/vendor-openapi';

/** Not in the catalogue: analytics and logout (docs/local-cloud.md, fidelity notes). */
const UNCOVERED = ['logout', 'identifyUser', 'trackEvent'];

describeWithTools('the catalogue against the vendor document', vendorDocumentMissing(), () => {
  describe.each(DOCUMENT_DIALECTS)('%s dialect', (dialect) => {
    const document = dialectDocument(dialect);

    test('every catalogue action has its operation (by method and path)', () => {
      expect(ACTION_NAMES.filter((action) => document.forAction(action) === undefined)).toEqual([]);
    });

    test('the operations without a catalogue action are exactly the known ones', () => {
      const covered = new Set(ACTION_NAMES.map((action) => document.forAction(action)?.id));
      const uncovered = document.operations.map((op) => op.id).filter((id) => !covered.has(id));
      expect(uncovered).toEqual(UNCOVERED);
    });

    test.each(ACTION_NAMES)(
      '%s accepts each success status the document lists, and answers one',
      (action) => {
        const def = operations[action];
        const documented = successStatuses(document.forAction(action)!);
        expect(
          documented.filter((s) => s !== def.successStatus && !def.alsoAccepted.includes(s as never)),
        ).toEqual([]);
        expect(documented).toContain(def.successStatus);
      },
    );
  });

  test("every query parameter of the current dialect's logs is one the catalogue sends", () => {
    const op = dialectDocument('current').forAction('service.logs')!;
    const known = Object.keys((operations['service.logs'].query as z.ZodObject).shape);
    expect([...op.query.keys()].filter((name) => !known.includes(name))).toEqual([]);
    expect([...op.query.keys()].sort()).toEqual(['cursor', 'node', 'search', 'severities', 'since', 'until']);
  });

  test("the metrics series body takes exactly the fields of the document's request, the same ones required", () => {
    const vendor = vendorDocument();
    if (!vendor.available) throw new Error(vendor.reason);
    const request = vendor.doc.components.schemas?.MetricsSeriesRequest as {
      properties: Record<string, unknown>;
      required: string[];
    };
    const shape = operations['service.metricsSeries'].body.shape as Record<string, z.ZodType>;
    const required = Object.keys(shape).filter((name) => !shape[name]!.safeParse(undefined).success);
    expect(Object.keys(shape).sort()).toEqual(Object.keys(request.properties).sort());
    expect(required.sort()).toEqual([...request.required].sort());
  });
});
