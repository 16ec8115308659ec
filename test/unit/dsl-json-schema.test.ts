// The committed JSON Schema must equal what the zod schema generates, and must accept the shipped
// runbooks (and reject broken ones) the way an editor using it would.
// Regenerate: UPDATE_SCHEMA=1 npx jest test/unit/dsl-json-schema.test.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { RUNBOOK_SCHEMA_FILE, runbookJsonSchema, runbookJsonSchemaText } from '../../dsl/json-schema';
import { shippedRunbookFiles } from '../helpers/shipped-runbook-files';

const root = join(__dirname, '..', '..');
const schemaPath = join(root, RUNBOOK_SCHEMA_FILE);

if (process.env.UPDATE_SCHEMA === '1') writeFileSync(schemaPath, runbookJsonSchemaText());

describe('runbook JSON Schema', () => {
  it('is committed in sync with the zod schema', () => {
    const committed = readFileSync(schemaPath, 'utf8');
    if (committed !== runbookJsonSchemaText()) {
      throw new Error(
        `${RUNBOOK_SCHEMA_FILE} is stale; run: UPDATE_SCHEMA=1 npx jest test/unit/dsl-json-schema.test.ts`,
      );
    }
  });

  // ajv comes with fastify (a dependency); it stands in for an editor's JSON Schema checker.
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  const validate = ajv.compile(runbookJsonSchema());
  const runbookDir = join(root, 'runbooks');

  it.each(shippedRunbookFiles(runbookDir))('accepts the shipped runbook %s', (file) => {
    const valid = validate(parse(readFileSync(join(runbookDir, file), 'utf8')));
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('rejects unknown actions, unknown with fields, bad durations and steps with two kinds', () => {
    const base = { apiVersion: 'tideline/v1', name: 'x', description: 'x' };
    const cases = [
      [{ id: 'a', call: 'service.craete', with: { project_id: 'p', name: 'n' } }],
      [{ id: 'a', call: 'service.create', with: { project_id: 'p', name: 'n', nmae: 'x' } }],
      [{ id: 'a', call: 'service.create', with: { project_id: 'p' } }],
      [{ id: 'a', sleep: '5 minutes' }],
      [{ id: 'a', call: 'service.get', wait: 'service.get' }],
      [{ id: 'a', wait: 'service.resize', with: { project_id: 'p', service_id: 's' } }],
    ];
    for (const steps of cases) expect([steps, validate({ ...base, steps })]).toEqual([steps, false]);
    expect(validate({ ...base, steps: [{ id: 'a', sleep: '5m' }] })).toBe(true);
    // Templates are accepted wherever a literal of another type would be.
    const templated = [
      {
        id: 'a',
        call: 'service.setHA',
        with: { project_id: 'p', service_id: 's', replica_count: '${{ inputs.n }}' },
      },
    ];
    expect(validate({ ...base, steps: templated })).toBe(true);
  });
});
