#!/usr/bin/env node
// Records the replay gate's missing workflow histories (test/fixtures/histories) with the current
// workflow code: `npm run record-histories` records every recording whose file does not exist yet,
// `npm run record-histories -- <name>,…` just those, and refuses a name whose file exists. Each
// file written gets its line in SHA256SUMS. Recorded histories are never overwritten: they are what
// released code did, and the replay gate (test/integration/workflows-replay-histories.test.ts) only replays.
// `--set-up <name>,…` runs those recordings first without writing them, for a recording that uses
// what an earlier one made (a service). `--dir <path>` writes into another directory (to try a
// recording without touching the fixtures).
// The recorder is TypeScript (history-recorder.ts, beside this file), so .ts files are transpiled
// on load (no type check: `npm run typecheck` does that). It lives with the tests because it is
// test tooling: what it records are the replay gate's fixtures.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
    },
  });
  module._compile(outputText, filename);
};

function parseArgs(argv) {
  const names = [];
  const setUp = [];
  let dir;
  const list = (value) =>
    value
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--dir') {
      dir = argv[++i];
      if (!dir) throw new Error('--dir needs a directory');
    } else if (argv[i] === '--set-up') {
      if (!argv[i + 1]) throw new Error('--set-up needs recording names');
      setUp.push(...list(argv[++i]));
    } else {
      names.push(...list(argv[i]));
    }
  }
  return { names, setUp, dir: dir && path.resolve(dir) };
}

async function main() {
  const { names, setUp, dir } = parseArgs(process.argv.slice(2));
  const recorder = require('./history-recorder.ts');
  const wanted = recorder.recordingsToMake(names, dir);
  if (wanted.length === 0) {
    console.log('every recording has its history; nothing to record');
    return;
  }
  console.log(`recording ${wanted.map((recording) => recording.name).join(', ')}`);
  const written = await recorder.recordMissingHistories(wanted, {
    dir,
    setUp: recorder.recordingsNamed(setUp),
    log: (line) => console.log(line),
  });
  for (const file of written) console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`record-histories: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  },
);
