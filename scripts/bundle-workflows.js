#!/usr/bin/env node
// Writes dist/workflow-bundle.js (the workflow code, pre-bundled) and dist/workflow-bundle-traced.js
// (the same with the tracing interceptors) so workers start without webpack. Run after
// `tsc -p tsconfig.build.json`; plain JS because it drives the compiled code.
'use strict';

const path = require('node:path');

const compiled = path.resolve(__dirname, '..', 'dist', 'worker', 'bundle.js');

async function main() {
  let bundleWorkflows;
  try {
    ({ bundleWorkflows } = require(compiled));
  } catch {
    process.stderr.write(
      'tideline: dist/worker/bundle.js is missing; run `npx tsc -p tsconfig.build.json` first.\n',
    );
    process.exit(1);
  }
  // The plain bundle, and the one with the tracing interceptors for workers that trace.
  for (const traced of [false, true]) {
    const started = Date.now();
    const { outFile, bytes } = await bundleWorkflows({ traced });
    const relative = path.relative(process.cwd(), outFile);
    process.stderr.write(
      `tideline: bundled workflows into ${relative} (${Math.round(bytes / 1024)} KiB, ${Date.now() - started} ms)\n`,
    );
  }
}

main().catch((error) => {
  process.stderr.write(
    `tideline: bundling workflows failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
