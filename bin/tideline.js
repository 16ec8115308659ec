#!/usr/bin/env node
// The `tideline` executable: runs the compiled CLI (dist/cli/main.js). When dist/ has not been
// built yet, it says how to build it instead of failing with a module error.
'use strict';
const { existsSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const entry = path.join(root, 'dist', 'cli', 'main.js');

if (existsSync(entry)) {
  require(entry).main();
} else {
  process.stderr.write(
    `tideline: the CLI is not built yet (${path.relative(process.cwd(), entry) || entry} is missing)\n` +
      `  hint: run \`npm run build\` in ${root} (after \`npm install\`), then try again\n`,
  );
  process.exitCode = 1;
}
