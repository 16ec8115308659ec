// Which operations of the vendor's API document (tiger-cli v0.21.2 with the overlays of
// test/contract/) tideline's catalogue covers, matched by method and path: every catalogue action
// has its operation, the statuses agree, and the operations left out are exactly the ones the
// docs/local-cloud.md lists, so a new operation in the document shows up here.
import { ACTION_NAMES, operations } from '../../cloud/operations';
import type { z } from 'zod';
import { describeWithTools } from '../helpers/tool-requirements';
import {
  CONTRACT_DIALECTS,
  dialectDocument,
  successStatuses,
  vendorDocumentMissing,
} from '../helpers/vendor-openapi';

/** Not in the catalogue: analytics, logout, and the metrics preview (docs/local-cloud.md, fidelity notes). */
const UNCOVERED = [
  'logout',
  'identifyUser',
  'trackEvent',
  'getServiceMetricsAvailableSeries',
  'getServiceMetricsSeries',
];

describeWithTools('the catalogue against the vendor document', vendorDocumentMissing(), () => {
  describe.each(CONTRACT_DIALECTS)('%s dialect', (dialect) => {
    const contract = dialectDocument(dialect);

    test('every catalogue action has its operation (by method and path)', () => {
      expect(ACTION_NAMES.filter((action) => contract.forAction(action) === undefined)).toEqual([]);
    });

    test('the operations without a catalogue action are exactly the known ones', () => {
      const covered = new Set(ACTION_NAMES.map((action) => contract.forAction(action)?.id));
      const uncovered = contract.operations.map((op) => op.id).filter((id) => !covered.has(id));
      expect(uncovered).toEqual(UNCOVERED);
    });

    test.each(ACTION_NAMES)(
      '%s accepts each success status the document lists, and answers one',
      (action) => {
        const def = operations[action];
        const documented = successStatuses(contract.forAction(action)!);
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
});
