// The cancel matrices' slice in npm test: every way a cancel can meet a run that the full matrix
// has, the slice has too, and it always ends with the runbook's last point.
import { readdirSync } from 'node:fs';
import { cancelPointsOf } from '../../bench/lib/cancel-runs';
import { operations, type ActionName } from '../../cloud/operations';
import { loadRunbookFile } from '../../dsl/loader';
import { representativeCancelPoints } from '../helpers/cancel-matrix';
import { RUNBOOKS_DIR } from '../helpers/runbook-stack';

const kindOf = (hold: string | undefined) =>
  hold === undefined ? 'nothing' : operations[hold as ActionName].kind.replace('delete', 'mutate');

describe.each(
  readdirSync(RUNBOOKS_DIR).filter((file) => file.endsWith('.yaml') && !file.endsWith('.test.yaml')),
)('%s', (file) => {
  const all = cancelPointsOf(loadRunbookFile(`${RUNBOOKS_DIR}/${file}`));
  const slice = representativeCancelPoints(all);
  const cases = (points: typeof all) => new Set(points.map((p) => `${p.when}:${kindOf(p.hold)}`));

  it('covers every case of the full matrix, in the runbook’s order, ending at its last point', () => {
    expect(cases(slice)).toEqual(cases(all));
    expect(slice.map((p) => all.indexOf(p))).toEqual(
      [...slice.map((p) => all.indexOf(p))].sort((a, b) => a - b),
    );
    expect(slice.at(-1)).toBe(all.at(-1));
    expect(slice.length).toBeLessThanOrEqual(all.length);
  });
});
