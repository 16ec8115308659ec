// The real `tideline retry` on a held run whose runbook declares a secret input:
// a secret given literally with `-i` gets the one-line warning naming `-i NAME=@FILE` (the form
// retry takes), read from the run's own definition; a non-secret `-i` and `@FILE` get none, and
// the value itself is never printed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { secretOnCommandLineWarning } from '../../cli/input-sources';
import { useCliStack } from '../helpers/cli-stack';
import { REPO_ROOT } from '../helpers/worker-process';

const FIXTURE = path.relative(
  REPO_ROOT,
  path.join(REPO_ROOT, 'test', 'fixtures', 'hold', 'rerun-secret.yaml'),
);
const TOKEN = 'rerun-kept-4711';

describe('tideline retry -i with a secret input', () => {
  const cli = useCliStack();
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tideline-retry-secret-'));
    writeFileSync(path.join(dir, 'wrong-token.txt'), 'not-the-token\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('warns for a literal secret only, naming -i NAME=@FILE', async () => {
    const id = 'cli-retry-secret';
    const tokenFile = path.join(dir, 'wrong-token.txt');
    const run = await cli.tideline(
      'run',
      FIXTURE,
      '--on-failure',
      'hold',
      '--id',
      id,
      '-i',
      `token=@${tokenFile}`,
    );
    expect(run.code).toBe(5);
    expect(run.stderr).toBe('');

    // A non-secret input changed literally: no warning (the gate still fails, so the run stays held).
    const notSecret = await cli.tideline('retry', id, '-i', 'go=maybe');
    expect(notSecret.code).toBe(1);
    expect(notSecret.stderr).not.toContain('warning');

    const literal = await cli.tideline('retry', id, '-i', 'go=true', '-i', `token=${TOKEN}`);
    expect(literal.code).toBe(0);
    const warning = secretOnCommandLineWarning('token', true);
    expect(warning).toBe(
      'tideline: warning: secret input `token` was given on the command line, where other users can see it (ps, shell history); use -i token=@FILE instead',
    );
    expect(literal.stderr).toBe(`${warning}\n`);
    expect(`${literal.stdout}${literal.stderr}`).not.toContain(TOKEN);

    const status = await cli.tideline('status', id);
    expect(status.code).toBe(0);
    expect(status.stdout).not.toContain(TOKEN);
  }, 120_000);
});
