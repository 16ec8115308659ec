// Jest's test order: unit suites first, so a broken unit fails within seconds of the start, then
// the integration suites. Within each tier Jest's own order holds (failed last time first, then
// slowest first, which packs the workers best).
'use strict';

const path = require('node:path');
const BaseSequencer = require('@jest/test-sequencer').default;

const UNIT_DIR = `${path.sep}test${path.sep}unit${path.sep}`;

class UnitsFirstSequencer extends BaseSequencer {
  async sort(tests) {
    const ordered = await super.sort(tests);
    const isUnit = (test) => test.path.includes(UNIT_DIR);
    return [...ordered.filter(isUnit), ...ordered.filter((test) => !isUnit(test))];
  }
}

module.exports = UnitsFirstSequencer;
