// The committed JSON Schema of state files (schema/state.schema.json) is the one state/state-schema.ts
// generates, and the shipped example state file satisfies it.
// Regenerate: UPDATE_SCHEMA=1 npx jest test/unit/state-schema.test.ts
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { STATE_SCHEMA_FILE, stateJsonSchemaText } from '../../state/state-schema';

const ROOT = path.resolve(__dirname, '..', '..');
const schemaPath = path.join(ROOT, STATE_SCHEMA_FILE);
if (process.env.UPDATE_SCHEMA === '1') writeFileSync(schemaPath, stateJsonSchemaText());

test('the committed schema is the generated one', () => {
  expect(readFileSync(schemaPath, 'utf8')).toBe(stateJsonSchemaText());
});

test('the example state file satisfies it, and a misspelt field does not', () => {
  const validate = new Ajv({ strict: false }).compile(JSON.parse(stateJsonSchemaText()) as object);
  const example = parse(
    readFileSync(path.join(ROOT, 'test/fixtures/state/prod-fleet.state.yaml'), 'utf8'),
  ) as {
    rules: Record<string, unknown>[];
  };
  expect([validate(example), validate.errors ?? []]).toEqual([true, []]);
  const misspelt = { ...example, rules: [{ ...example.rules[0], sevrity: 'error' }] };
  expect(validate(misspelt)).toBe(false);
});
