// The setup script's resolution order, caching and build path, on fake directories and fake
// executables (shell scripts standing in for `temporal` and `go`).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  ensureTemporalBinary,
  readTemporalPath,
  resolveTemporalBinary,
  toolsPaths,
  TEMPORAL_CLI_MODULE,
  TEMPORAL_CLI_VERSION,
} from '../../scripts/setup-temporal';

const SCRIPT = path.resolve(__dirname, '../../scripts/setup-temporal.js');

function writeExecutable(file: string, body: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

function fakeTemporal(file: string, works = true): string {
  return writeExecutable(file, works ? 'echo "temporal version 9.9.9-fake"' : 'exit 3');
}

/** A stand-in for `go`: answers `go env GOVERSION`, and `go install` writes a fake CLI to $GOBIN. */
function fakeGo(dir: string, version: string): string {
  return writeExecutable(
    path.join(dir, 'go'),
    [
      `if [ "$1" = env ]; then echo ${version}; exit 0; fi`,
      `echo "$@" > "${dir}/go-args"`,
      'mkdir -p "$GOBIN"',
      `printf '#!/bin/sh\\necho "temporal version built"\\n' > "$GOBIN/temporal"`,
      'chmod +x "$GOBIN/temporal"',
    ].join('\n'),
  );
}

describe('setup-temporal', () => {
  let root: string;
  let emptyDir: string;
  const quiet = (): void => undefined;

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'tideline-setup-'));
    emptyDir = path.join(root, 'empty-bin');
    mkdirSync(emptyDir);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  test('TIDELINE_TEMPORAL_BIN comes first, even when PATH and .tools have one', () => {
    const explicit = fakeTemporal(path.join(root, 'custom', 'temporal'));
    const pathDir = path.join(root, 'pathdir');
    fakeTemporal(path.join(pathDir, 'temporal'));
    fakeTemporal(toolsPaths(root, {}).binary);
    expect(resolveTemporalBinary({ root, env: { TIDELINE_TEMPORAL_BIN: explicit, PATH: pathDir } })).toEqual({
      path: explicit,
      source: 'env',
    });
  });

  test('an unusable TIDELINE_TEMPORAL_BIN is an error with a stable code', () => {
    expect(() =>
      resolveTemporalBinary({
        root,
        env: { TIDELINE_TEMPORAL_BIN: path.join(root, 'missing'), PATH: emptyDir },
      }),
    ).toThrow(expect.objectContaining({ code: 'TIDELINE_TEMPORAL_BIN_INVALID' }));
  });

  test('PATH comes before .tools; non-executable files on PATH are skipped', () => {
    const notExecutable = path.join(root, 'a', 'temporal');
    mkdirSync(path.dirname(notExecutable));
    writeFileSync(notExecutable, 'not a program');
    const good = fakeTemporal(path.join(root, 'b', 'temporal'));
    fakeTemporal(toolsPaths(root, {}).binary);
    const PATH = [path.dirname(notExecutable), path.dirname(good)].join(path.delimiter);
    expect(resolveTemporalBinary({ root, env: { PATH } })).toEqual({ path: good, source: 'path' });
  });

  test('.tools/bin/temporal is used when it runs; the check is remembered', () => {
    const binary = fakeTemporal(toolsPaths(root, {}).binary);
    const probed: string[] = [];
    const probe = (file: string): string | undefined => {
      probed.push(file);
      return spawnSync(file, ['--version'], { encoding: 'utf8' }).status === 0 ? 'ok' : undefined;
    };
    expect(resolveTemporalBinary({ root, env: { PATH: emptyDir }, probe })).toEqual({
      path: binary,
      source: 'tools',
    });
    expect(resolveTemporalBinary({ root, env: { PATH: emptyDir }, probe })).toEqual({
      path: binary,
      source: 'tools',
    });
    expect(probed).toEqual([binary]);
  });

  test('a .tools binary that does not run is ignored', () => {
    fakeTemporal(toolsPaths(root, {}).binary, false);
    expect(resolveTemporalBinary({ root, env: { PATH: emptyDir } })).toBeUndefined();
  });

  test('builds with the pinned `go install` into .tools/bin and records the path', async () => {
    const goDir = path.join(root, 'go-bin');
    fakeGo(goDir, 'go1.24.2');
    const lines: string[] = [];
    const resolved = await ensureTemporalBinary({
      root,
      env: { PATH: [goDir, '/usr/bin', '/bin'].join(path.delimiter) },
      goFallbackPaths: [],
      log: (line) => lines.push(line),
    });
    const paths = toolsPaths(root, {});
    expect(resolved).toEqual({ path: paths.binary, source: 'built' });
    expect(readFileSync(path.join(goDir, 'go-args'), 'utf8').trim()).toBe(
      `install ${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}`,
    );
    expect(readFileSync(paths.pathFile, 'utf8').trim()).toBe(paths.binary);
    expect(lines.join('\n')).toMatch(/building the Temporal CLI v1\.5\.1/);
    expect(existsSync(paths.lockDir)).toBe(false);

    // Once built, it is found without Go and the recorded path is what tests read.
    const again = await ensureTemporalBinary({
      root,
      env: { PATH: emptyDir },
      goFallbackPaths: [],
      log: quiet,
    });
    expect(again).toEqual({ path: paths.binary, source: 'tools' });
    expect(readTemporalPath({ root, env: { PATH: emptyDir } })).toBe(paths.binary);
  });

  test('a Go older than 1.23 is refused with an install hint', async () => {
    const goDir = path.join(root, 'go-bin');
    fakeGo(goDir, 'go1.21.0');
    await expect(
      ensureTemporalBinary({
        root,
        env: { PATH: [goDir, '/usr/bin', '/bin'].join(path.delimiter) },
        goFallbackPaths: [],
        log: quiet,
      }),
    ).rejects.toMatchObject({
      code: 'TIDELINE_TEMPORAL_UNAVAILABLE',
      message: expect.stringMatching(/too old/),
    });
  });

  test('without Go and without a binary: a clear message saying what to install', async () => {
    await expect(
      ensureTemporalBinary({ root, env: { PATH: emptyDir }, goFallbackPaths: [], log: quiet }),
    ).rejects.toMatchObject({
      code: 'TIDELINE_TEMPORAL_UNAVAILABLE',
      message: expect.stringMatching(/Temporal CLI[\s\S]*Go >= 1\.23/),
    });
    expect(existsSync(toolsPaths(root, {}).pathFile)).toBe(false);
  });

  test('the script exits 1 with its message on a setup error', () => {
    const result = spawnSync(process.execPath, [SCRIPT], {
      env: { ...process.env, TIDELINE_TEMPORAL_BIN: path.join(root, 'no-such-temporal') },
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('TIDELINE_TEMPORAL_BIN points to');
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  test('readTemporalPath explains what to run when nothing is set up', () => {
    expect(() => readTemporalPath({ root, env: { PATH: emptyDir } })).toThrow(
      expect.objectContaining({
        code: 'TIDELINE_TEMPORAL_MISSING',
        message: expect.stringMatching(/npm run setup/),
      }),
    );
  });
});
