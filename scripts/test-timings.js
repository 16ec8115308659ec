// The committed timing list, test/timings.json: how many seconds each test file took in a full run
// on a two-core machine. Jest's sequencer (scripts/jest-test-sequencer.js) reads it to start the
// slowest files first when Jest has no timings of its own, as on a fresh clone. It is refreshed by
// hand from a Jest results file, never by CI:
//   npx jest --json --outputFile=results.json && npm run test:timings -- results.json
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const TIMINGS_FILE = 'test/timings.json';

/** A repository-relative path with `/`, as the list names files. */
function listKey(rootDir, file) {
  return path.relative(rootDir, file).split(path.sep).join('/');
}

/** The list's seconds per file; empty when there is no list. Throws, naming the file, on a bad one. */
function readTimings(rootDir) {
  const file = path.join(rootDir, TIMINGS_FILE);
  if (!fs.existsSync(file)) return {};
  let parsed;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${TIMINGS_FILE}: not JSON (${error.message}); refresh it with npm run test:timings`);
  }
  const seconds = parsed && typeof parsed === 'object' ? parsed.seconds : undefined;
  if (!seconds || typeof seconds !== 'object' || Array.isArray(seconds)) {
    throw new Error(`${TIMINGS_FILE}: needs a "seconds" object of file → seconds`);
  }
  for (const [name, value] of Object.entries(seconds)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new Error(`${TIMINGS_FILE}: ${name}: seconds must be a number ≥ 0, not ${JSON.stringify(value)}`);
    }
  }
  return seconds;
}

/**
 * Orders files: those that failed last time first (feedback soonest), then those with a time —
 * this machine's last run, else the list — slowest first, then the rest by size, largest first
 * (Jest's own guess). Ties keep the path order, so the order is the same on every machine.
 * Each file: { key, failed, seconds (undefined when unknown), size }.
 */
function orderSlowestFirst(files) {
  const rank = (file) => (file.failed ? 0 : file.seconds !== undefined ? 1 : 2);
  return [...files].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      (b.seconds ?? 0) - (a.seconds ?? 0) ||
      (rank(a) === 2 ? b.size - a.size : 0) ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
}

/**
 * The list with the files of a Jest results file (`jest --json`) that passed, in seconds to a
 * tenth; files it did not run keep their entry, files that no longer exist lose it.
 */
function refreshedTimings(rootDir, current, results) {
  if (!results || !Array.isArray(results.testResults)) {
    throw new Error('not a Jest results file: run jest with --json --outputFile=FILE');
  }
  const next = { ...current };
  for (const result of results.testResults) {
    // `jest --json` gives startTime and endTime; a reporter's raw result gives perfStats.
    const perf = result.perfStats ?? { start: result.startTime, end: result.endTime };
    const ms = perf.runtime ?? perf.end - perf.start;
    const passed = result.status === 'passed' && !result.testExecError;
    if (passed && Number.isFinite(ms) && ms >= 0)
      next[listKey(rootDir, result.name)] = Math.round(ms / 100) / 10;
  }
  const kept = Object.keys(next)
    .filter((key) => fs.existsSync(path.join(rootDir, key)))
    .sort();
  return Object.fromEntries(kept.map((key) => [key, next[key]]));
}

function main(argv) {
  const [resultsFile] = argv;
  if (resultsFile === undefined) {
    process.stderr.write(
      'usage: npm run test:timings -- RESULTS.json\n  hint: make one with npx jest --json --outputFile=RESULTS.json\n',
    );
    return 2;
  }
  const rootDir = path.resolve(__dirname, '..');
  let results;
  try {
    results = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  } catch (error) {
    process.stderr.write(`test-timings: cannot read ${resultsFile}: ${error.message}\n`);
    return 2;
  }
  const file = path.join(rootDir, TIMINGS_FILE);
  const current = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  let seconds;
  try {
    seconds = refreshedTimings(rootDir, readTimings(rootDir), results);
  } catch (error) {
    process.stderr.write(`test-timings: ${error.message}\n`);
    return 2;
  }
  fs.writeFileSync(file, `${JSON.stringify({ ...current, seconds }, null, 2)}\n`);
  process.stdout.write(`${TIMINGS_FILE}: ${Object.keys(seconds).length} files\n`);
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

module.exports = { TIMINGS_FILE, listKey, readTimings, orderSlowestFirst, refreshedTimings };
