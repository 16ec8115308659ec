// Jest's test order: unit suites first, so a broken unit fails within seconds of the start, then
// the integration suites. Within each tier: files that failed last time first, then the slowest
// first, which packs the workers best — by Jest's timings of this machine's last run, else by the
// committed list (test/timings.json, scripts/test-timings.js), so a fresh clone starts its longest
// file at once; a file neither knows goes after those, largest first.
'use strict';

const path = require('node:path');
const BaseSequencer = require('@jest/test-sequencer').default;
const { listKey, orderSlowestFirst, readTimings } = require('./test-timings');

const UNIT_DIR = `${path.sep}test${path.sep}unit${path.sep}`;

class UnitsFirstSequencer extends BaseSequencer {
  async sort(tests) {
    const listed = new Map();
    const timingsOf = (rootDir) => {
      if (!listed.has(rootDir)) listed.set(rootDir, readTimings(rootDir));
      return listed.get(rootDir);
    };
    const files = tests.map((test) => {
      const { rootDir } = test.context.config;
      const key = listKey(rootDir, test.path);
      const cachedMs = this.time(test);
      const seconds = cachedMs !== undefined ? cachedMs / 1000 : timingsOf(rootDir)[key];
      // Jest's runner reads it too (whether to run in band, its estimates).
      test.duration = seconds === undefined ? undefined : seconds * 1000;
      const size = test.context.hasteFS.getSize(test.path) ?? 0;
      return { key, failed: this.hasFailed(test), seconds, size, test };
    });
    const ordered = orderSlowestFirst(files).map((file) => file.test);
    const isUnit = (test) => test.path.includes(UNIT_DIR);
    return [...ordered.filter(isUnit), ...ordered.filter((test) => !isUnit(test))];
  }
}

module.exports = UnitsFirstSequencer;
