// The cancel matrices' slice in npm test: over the runbooks of a suite it meets a run in every way
// the full matrices do, each runbook keeps its first cancel of a create and of a change in flight
// (its own undo) and its last point, in the runbook's order.
import { cancelPointsOf, type CancelPoint } from '../../bench/lib/cancel-runs';
import { loadRunbookFile } from '../../dsl/loader';
import { cancelCase, cancelsAChange, representativeCancelPoints } from '../helpers/cancel-matrix';
import { RUNBOOKS_DIR } from '../helpers/runbook-stack';
import { shippedRunbookFiles } from '../helpers/shipped-runbook-files';

const runbooks = shippedRunbookFiles(RUNBOOKS_DIR);
const matrices = runbooks.map((file) => cancelPointsOf(loadRunbookFile(`${RUNBOOKS_DIR}/${file}`)));
const covered = new Set<string>();
const slices = matrices.map((all) => representativeCancelPoints(all, covered));
const cases = (points: readonly CancelPoint[]) => new Set(points.map(cancelCase));

test('over the suite, the slices meet runs in every way the full matrices do', () => {
  expect(cases(slices.flat())).toEqual(cases(matrices.flat()));
  expect(slices.flat().length).toBeLessThan(matrices.flat().length);
});

describe.each(runbooks.map((file, i) => [file, matrices[i]!, slices[i]!] as const))(
  '%s',
  (_file, all, slice) => {
    it('keeps its first cancel of a create and of a change in flight and its last point, in order', () => {
      const firstOfEach = (points: readonly CancelPoint[]) =>
        points.filter(
          (p, i) => cancelsAChange(p) && points.findIndex((q) => cancelCase(q) === cancelCase(p)) === i,
        );
      expect(firstOfEach(slice)).toEqual(firstOfEach(all));
      expect(slice.at(-1)).toBe(all.at(-1));
      const order = slice.map((p) => all.indexOf(p));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    });
  },
);

test('a way of cancelling already met is not repeated, unless it is a runbook’s first cancel of that change', () => {
  const seen = new Set<string>();
  for (const [i, all] of matrices.entries()) {
    const here = new Set<string>();
    for (const point of slices[i]!) {
      const key = cancelCase(point);
      if (seen.has(key) && point !== all.at(-1))
        expect({ key, ownFirstChange: cancelsAChange(point) && !here.has(key) }).toEqual({
          key,
          ownFirstChange: true,
        });
      here.add(key);
    }
    for (const point of all) seen.add(cancelCase(point));
  }
});
