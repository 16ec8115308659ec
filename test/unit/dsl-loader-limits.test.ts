// The loader on hostile or careless input: files that are not regular files or are too large,
// invalid UTF-8, YAML nesting and alias bombs, and child runbook paths that leave the runbooks'
// folder. Each case: the exact file:line:column (where there is one) and message, within a time
// bound, with the file's other problems still reported. Adversarial files are generated here.
import { withCpuTime } from '../helpers/cpu-time';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkRunbookFile } from '../../dsl/loader';
import { isRunbookError, type RunbookError, type RunbookProblem } from '../../dsl/problems';
import { firstInvalidUtf8 } from '../../dsl/source-file';

const HEAD = 'apiVersion: tideline/v1\nname: t\ndescription: d\n';
/** A step with an unknown action at line 6, column 11 of HEAD + this. */
const BAD_STEP = 'steps:\n  - id: bad\n    call: service.craete\n';
const BAD_STEP_AT = 'unknown-action 6:11';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tideline-loader-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string | Buffer): string {
  const file = join(dir, name);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, content);
  return file;
}

function thrown(fn: () => unknown): RunbookError {
  try {
    fn();
  } catch (error) {
    if (isRunbookError(error)) return error;
    throw error;
  }
  throw new Error('expected a RunbookError');
}

/** `rule line:col`, `file` prefixed when the problem is in another file than `main`. */
function where(problem: RunbookProblem): string {
  return `${problem.rule} ${problem.line}:${problem.column}`;
}

/** Checks within `ms` of CPU time and returns `rule line:col message` per problem. */
function timed(file: string, ms = 5_000, options = {}): { problems: RunbookProblem[]; lines: string[] } {
  const { value, cpuMs } = withCpuTime(() =>
    checkRunbookFile(file, { displayName: (path) => path, ...options }),
  );
  const { problems } = value;
  expect(cpuMs).toBeLessThan(ms);
  return { problems, lines: problems.map((p) => `${where(p)} ${p.message}`) };
}

describe('files that cannot be runbooks', () => {
  const cases: [string, () => string, string][] = [
    ['a directory', () => dir, 'is a directory, not a runbook file'],
    ['/dev/zero', () => '/dev/zero', 'is a device, not a runbook file'],
    [
      'a 3 MiB file',
      () => write('huge.yaml', `${HEAD}# ${'x'.repeat(3 * 1024 * 1024)}\n`),
      'is larger than 1 MiB, the limit for a runbook file',
    ],
    [
      'a FIFO',
      () => {
        const fifo = join(dir, 'fifo.yaml');
        execFileSync('mkfifo', [fifo]);
        return fifo;
      },
      'is a pipe (FIFO), not a runbook file',
    ],
  ];
  it.each(cases)('%s: RUNBOOK_UNREADABLE with its own message, at once', (_, make, message) => {
    const file = make();
    const { value: error, cpuMs } = withCpuTime(() => thrown(() => checkRunbookFile(file)));
    expect(cpuMs).toBeLessThan(5_000);
    expect(error.code).toBe('RUNBOOK_UNREADABLE');
    expect(error.message).toBe(`${file}: ${message}`);
    expect(error.problems).toEqual([{ rule: 'file', path: [], file, message }]);
  });

  it('a missing file stays RUNBOOK_NOT_FOUND', () => {
    expect(thrown(() => checkRunbookFile(join(dir, 'nope.yaml'))).code).toBe('RUNBOOK_NOT_FOUND');
  });
});

describe('invalid UTF-8', () => {
  it('is reported at its line:column and the rest of the file is still checked', () => {
    const bytes = Buffer.concat([
      Buffer.from(`${HEAD}steps:\n  - id: bad\n    call: service.craete\n  - id: ok # caf`),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('\n    sleep: 1s\n'),
    ]);
    const { lines } = timed(write('latin1.yaml', bytes));
    expect(lines).toEqual([
      `${BAD_STEP_AT} unknown action \`service.craete\``,
      'encoding 7:17 invalid UTF-8: this byte is not part of any character',
    ]);
  });

  it.each([
    ['overlong', [0xc0, 0xaf]],
    ['surrogate', [0xed, 0xa0, 0x80]],
    ['truncated', [0xe2, 0x82]],
    ['above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ])('%s sequences are invalid; valid multi-byte text is not', (_, bad) => {
    expect(firstInvalidUtf8(Buffer.from([0x61, ...bad]))).toBe(1);
    expect(firstInvalidUtf8(Buffer.from('ä € 😀 ok'))).toBe(-1);
  });
});

describe('YAML limits', () => {
  const cases: [string, () => string, string][] = [
    [
      '2,000 nested flow lists',
      () => `${HEAD}${BAD_STEP}outputs:\n  deep: ${'['.repeat(2000)}${']'.repeat(2000)}\n`,
      'limit 8:107 YAML nested deeper than 100 levels (the limit); this part is not checked',
    ],
    [
      '1,200 nested block maps',
      () => {
        let text = `${HEAD}${BAD_STEP}outputs:\n`;
        for (let level = 1; level <= 1200; level++) text += `${' '.repeat(level)}k${level}:\n`;
        return text;
      },
      'limit 107:101 YAML nested deeper than 100 levels (the limit); this part is not checked',
    ],
    [
      '2,000 compact nested sequences',
      () => `${HEAD}${BAD_STEP}outputs:\n  deep:\n    ${'- '.repeat(2000)}x\n`,
      'limit 9:201 YAML nested deeper than 100 levels (the limit); this part is not checked',
    ],
    [
      'a billion laughs',
      () => {
        let text = `${HEAD}${BAD_STEP}x0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n`;
        for (let level = 1; level <= 9; level++) {
          text += `x${level}: &a${level} [${Array(9)
            .fill(`*a${level - 1}`)
            .join(', ')}]\n`;
        }
        return text;
      },
      'limit 12:10 YAML aliases expand to more than 100000 nodes (the limit); `*a4` and later aliases over it are not checked',
    ],
  ];
  it.each(cases)(
    '%s: reported at file:line:column, other problems too, no overflow',
    (name, make, expected) => {
      const file = write(`${name.replace(/\W+/g, '-')}.yaml`, make());
      const { problems, lines } = timed(file);
      expect(lines).toContain(expected);
      expect(lines).toContain(`${BAD_STEP_AT} unknown action \`service.craete\``);
      expect(problems.every((p) => p.file === file)).toBe(true);
      expect(lines.join('\n')).not.toMatch(/call stack|read error/);
    },
  );

  it('a few aliases are fine', () => {
    const file = write(
      'aliases.yaml',
      `${HEAD}steps:\n  - id: a\n    sleep: &d 1s\n  - id: b\n    sleep: *d\n`,
    );
    expect(timed(file).problems).toEqual([]);
  });
});

describe('large runbooks within the size limit', () => {
  // Each took over a minute when every step copied the set of visible ids and registered its own
  // CEL type (quadratic); checking is linear now. Bounds are generous: a loaded machine is fine.
  const steps = (count: number, step: (i: number) => string): string =>
    `${HEAD}inputs:\n  n: { type: integer, default: 1 }\nsteps:\n${Array.from({ length: count }, (_, i) => step(i)).join('')}`;
  it.each([
    ['20,000 sleeps', () => steps(20_000, (i) => `  - id: s${i}\n    sleep: 1s\n`)],
    [
      '6,000 asserts reading the step before',
      () =>
        steps(
          6_000,
          (i) =>
            `  - id: a${i}\n    assert: "\${{ inputs.n > 0 && steps.a${Math.max(i - 1, 0)}.status == 'done' }}"\n`,
        ),
    ],
    [
      '9,000 steps with compensations',
      () => steps(9_000, (i) => `  - id: s${i}\n    sleep: 1s\n    compensate: [{ id: u${i}, sleep: 1s }]\n`),
    ],
  ])(
    '%s: checked in linear time',
    (name, make) => {
      const text = make();
      expect(Buffer.byteLength(text)).toBeLessThan(1024 * 1024);
      const file = write(`${name.replace(/\W+/g, '-')}.yaml`, text);
      const { lines } = timed(file, 30_000);
      // a0 reads its own status (the first step has none before it); nothing else is wrong.
      expect(lines.filter((line) => !line.includes('a0'))).toEqual([]);
    },
    60_000,
  );
});

describe('child runbook paths stay in the runbooks folder', () => {
  const step = (reference: string): string => `${HEAD}steps:\n  - id: child\n    runbook: ${reference}\n`;
  let root: string;
  beforeAll(() => {
    root = join(dir, 'tree');
    write('tree/sub/child.yaml', `${HEAD}steps:\n  - id: s\n    sleep: 1s\n`);
    write('tree/sub/escape.yaml', step('../../outside.yaml'));
    write('outside.yaml', `${HEAD}steps:\n  - id: s\n    sleep: 1s\n`);
    write('shared/common.yaml', `${HEAD}steps:\n  - id: s\n    sleep: 1s\n`);
    symlinkSync(join(dir, 'outside.yaml'), join(root, 'link.yaml'));
    mkdirSync(join(root, 'folder.yaml'));
  });

  const OUTSIDE = "child-runbook 6:14 child runbook `REF` is outside the runbooks' folder";
  it.each([
    ['../../../etc/passwd', OUTSIDE],
    ['/etc/passwd', OUTSIDE],
    ['../outside.yaml', OUTSIDE],
    ['link.yaml', OUTSIDE],
    ['folder.yaml', 'child-runbook 6:14 child runbook `REF` is a directory, not a runbook file'],
  ])('%s is an error at the step', (reference, expected) => {
    const main = write(`tree/main-${reference.replace(/\W+/g, '-')}.yaml`, step(reference));
    const { problems, lines } = timed(main);
    expect(lines).toEqual([expected.replace('REF', reference)]);
    expect(problems[0]?.file).toBe(main);
    if (expected === OUTSIDE) expect(problems[0]?.hint).toContain('--runbooks-root DIR');
  });

  it('a grandchild that escapes is reported in the child, at its step', () => {
    const { problems } = timed(write('tree/main-grand.yaml', step('sub/escape.yaml')));
    expect(problems.map((p) => `${p.file}:${p.line}:${p.column}`)).toEqual([
      `${join(root, 'sub', 'escape.yaml')}:6:14`,
    ]);
  });

  it('children below the root are fine; runbooksRoot widens the tree', () => {
    expect(timed(write('tree/main-ok.yaml', step('sub/child.yaml'))).problems).toEqual([]);
    const sibling = write('tree/main-shared.yaml', step('../shared/common.yaml'));
    expect(timed(sibling).lines).toHaveLength(1);
    expect(timed(sibling, 5_000, { runbooksRoot: dir }).problems).toEqual([]);
  });
});
