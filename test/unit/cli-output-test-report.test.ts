// What `tideline test` reports: the JUnit XML is well-formed (checked by a small strict parser
// below, no dependency) with one testcase per case and a failure for the failing one; the text
// report names each unmet expectation and the step trail; expectations compare what they should.
import type { CaseResult } from '../../rehearsal/case-runner';
import { unmetExpectations, type Outcome } from '../../rehearsal/expectations';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { ActionName } from '../../cloud/operations';
import { junitXml, xmlEscape } from '../../cli/output/test-junit';
import { caseLines, coverageLines, resultsJson } from '../../cli/output/test-report';
import type { RunbookCoverage } from '../../rehearsal/coverage';
import { historyText } from '../../rehearsal/history-text';
import { PLAIN_STYLE } from '../../cli/output/style';
import { resolveReferences } from '../../rehearsal/cloud-references';
import type { RunReport } from '../../contract/run-messages';

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

type OrderedNode = Record<string, unknown>;

/** An element of fast-xml-parser's ordered output as name, attributes, child elements and text. */
function toElement(node: OrderedNode): XmlElement | undefined {
  const name = Object.keys(node).find((key) => key !== ':@' && key !== '#text');
  if (name === undefined) return undefined;
  const content = (node[name] as OrderedNode[] | undefined) ?? [];
  return {
    name,
    attributes: (node[':@'] as Record<string, string> | undefined) ?? {},
    children: content.map(toElement).filter((e): e is XmlElement => e !== undefined),
    text: content.map((child) => (typeof child['#text'] === 'string' ? child['#text'] : '')).join(''),
  };
}

/**
 * Reads a JUnit report the way a CI system would: with a standard XML parser (fast-xml-parser),
 * after its validator has found it well-formed; a report has exactly one root element.
 */
function parseXml(xml: string): XmlElement {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new Error(`not well-formed: ${valid.err.msg} (line ${valid.err.line})`);
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    ignoreDeclaration: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
  });
  const roots = (parser.parse(xml) as OrderedNode[])
    .map(toElement)
    .filter((e): e is XmlElement => e !== undefined);
  if (roots.length !== 1) throw new Error(`not well-formed: ${roots.length} root elements`);
  return roots[0]!;
}

const step = (key: string, status: CaseResult['steps'][number]['status'], error?: string) => ({
  key,
  id: key,
  kind: 'call',
  status,
  ...(error !== undefined ? { error: { type: 'CLOUD_API_NOT_FOUND', message: error } } : {}),
});

const passed: CaseResult = {
  file: 'runbooks/a.test.yaml',
  name: 'provisions <orders> & "tags" it',
  runbook: 'a.yaml',
  passed: true,
  durationMs: 1234,
  workflowId: 'test-a-1',
  mismatches: [],
  steps: [step('create', 'done')],
};
const failed: CaseResult = {
  ...passed,
  name: 'rolls back',
  passed: false,
  mismatches: [{ what: 'cloud.services.doomed', expected: 'absent', actual: 'READY (abc)' }],
  steps: [step('create', 'compensated'), step('attach', 'failed', 'VPC 99 \u0001 not found <here>')],
};
const broken: CaseResult = {
  ...passed,
  file: 'runbooks/b.test.yaml',
  name: 'times out',
  passed: false,
  error: { code: 'TEST_CASE_TIMEOUT', message: 'the run did not end within 120s' },
  steps: [],
};

describe('JUnit XML', () => {
  it('is well-formed, with one testcase per case and a failure for the failing one', () => {
    const root = parseXml(junitXml([passed, failed, broken]));
    expect(root.name).toBe('testsuites');
    expect(root.attributes).toMatchObject({ tests: '3', failures: '1', errors: '1' });
    const suites = root.children;
    expect(suites.map((s) => [s.name, s.attributes.name, s.attributes.tests])).toEqual([
      ['testsuite', 'runbooks/a.test.yaml', '2'],
      ['testsuite', 'runbooks/b.test.yaml', '1'],
    ]);
    const cases = suites.flatMap((s) => s.children);
    expect(cases.map((c) => [c.name, c.attributes.name, c.attributes.time])).toEqual([
      ['testcase', 'provisions <orders> & "tags" it', '1.234'],
      ['testcase', 'rolls back', '1.234'],
      ['testcase', 'times out', '1.234'],
    ]);
    expect(cases[0]?.children).toEqual([]);
    const [failure] = cases[1]?.children ?? [];
    expect(failure?.name).toBe('failure');
    expect(failure?.attributes.message).toBe('cloud.services.doomed');
    expect(failure?.text).toContain('cloud.services.doomed: expected "absent", got "READY (abc)"');
    expect(failure?.text).toContain('attach: failed — CLOUD_API_NOT_FOUND: VPC 99  not found <here>');
    expect(cases[2]?.children.map((c) => [c.name, c.attributes.type])).toEqual([
      ['error', 'TEST_CASE_TIMEOUT'],
    ]);
  });

  it('the checker refuses what is not well-formed', () => {
    const head = '<?xml version="1.0" encoding="UTF-8"?>\n';
    for (const bad of ['<a><b></a></b>', '<a x="1" x="2"/>', '<a>&</a>', '<a>', '<a/><b/>'])
      expect(() => parseXml(head + bad)).toThrow(/not well-formed/);
  });

  it('escapes markup and drops characters XML cannot hold', () => {
    expect(xmlEscape(`<a href="x">&'\u0000\u001b\ud800`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&apos;');
  });
});

describe('the text report', () => {
  it("names each unmet expectation, expected vs actual, and the run's steps", () => {
    expect(caseLines(failed, PLAIN_STYLE)).toEqual([
      '✗ rolls back (1.2s)',
      '    runbooks/a.test.yaml → a.yaml',
      '    cloud.services.doomed: expected absent, got READY (abc)',
      '    steps of run test-a-1:',
      '      create: compensated',
      '      attach: failed — CLOUD_API_NOT_FOUND: VPC 99 \u0001 not found <here>',
    ]);
  });
});

describe('the coverage report', () => {
  const provision: RunbookCoverage = {
    runbook: 'runbooks/provision-production-service.yaml',
    cases: 3,
    steps: { covered: 9, total: 9, uncovered: [] },
    branches: { covered: 1, total: 1, uncovered: [] },
    failurePaths: {
      covered: 2,
      total: 4,
      uncovered: [{ step: 'create/undo.delete_service' }, { run: 'hold' }],
    },
  };
  const fleet: RunbookCoverage = {
    runbook: 'ops/fleet.yaml',
    cases: 1,
    steps: { covered: 2, total: 4, uncovered: ['each[*].stop', 'each[*].stop/undo.start'] },
    branches: {
      covered: 0,
      total: 3,
      uncovered: [
        { step: 'check', outcome: 'not-taken' },
        { step: 'ok', outcome: 'rejected' },
        { step: 'each[*].stop', outcome: 'compensated' },
      ],
    },
    failurePaths: { covered: 0, total: 1, uncovered: [{ run: 'rollback' }] },
  };

  it('gives a line of counts per runbook, aligned, then what no case exercised, indented', () => {
    expect(coverageLines([provision, fleet], PLAIN_STYLE)).toEqual([
      'coverage by the 4 cases run:',
      '  runbooks/provision-production-service.yaml  steps 9/9  branches 1/1  failure paths 2/4',
      '    failure paths not seen: create/undo.delete_service, run hold',
      '  ops/fleet.yaml                              steps 2/4  branches 0/3  failure paths 0/1',
      '    steps not reached: each[*].stop, each[*].stop/undo.start',
      '    branches not taken: check (if not taken), ok (rejected), each[*].stop (compensated)',
      '    failure paths not seen: run rollback',
    ]);
    expect(coverageLines([], PLAIN_STYLE)).toEqual([]);
  });

  it('wraps a long list under its first item', () => {
    const many = Array.from({ length: 12 }, (_, i) => `a_rather_long_step_${i}`);
    const lines = coverageLines(
      [{ ...fleet, steps: { covered: 0, total: 12, uncovered: many } }],
      PLAIN_STYLE,
    );
    const list = lines.slice(
      2,
      lines.findIndex((line) => line.includes('branches not taken')),
    );
    expect(list.length).toBeGreaterThan(2);
    for (const line of list) expect(line.length).toBeLessThanOrEqual(4 + 100);
    expect(list[1]).toMatch(/^ {4} {19}a_rather_long_step_\d+,/);
    // Nothing lost or repeated: the lines joined again are the whole list.
    expect(list.map((line) => line.trim()).join(' ')).toBe(`steps not reached: ${many.join(', ')}`);
  });

  it('is the `coverage` field of --json, left out when not counted', () => {
    const parsed = JSON.parse(resultsJson([passed], 10, [fleet])) as { coverage?: unknown };
    expect(parsed.coverage).toEqual([fleet]);
    expect(JSON.parse(resultsJson([passed], 10))).not.toHaveProperty('coverage');
  });
});

describe('expectations', () => {
  const ids = { projectId: 'p1', services: new Map([['shop', 's1']]), vpcs: new Map([['main', 'v1']]) };
  const report: RunReport = {
    runbook: 'x',
    status: 'failed',
    startedAt: 0,
    steps: [step('create', 'compensated'), step('pooler', 'failed')],
    failure: { stepKey: 'pooler', type: 'CLOUD_API_RATE_LIMITED', message: 'too many requests' },
    outputs: { service_id: 's1', password: 'hunter2-secret' },
    secretOutputs: ['password'],
  };
  const outcome: Outcome = {
    report,
    calls: { 'service.create': { total: 1, byStatus: { '202': 1 } } },
    sequence: ['service.create', 'service.get', 'service.enablePooler', 'service.get', 'service.delete'],
    services: [
      { name: 'shop', status: 'READY', metadata: { environment: 'PROD' }, vpc_endpoint: { vpc_id: 'v1' } },
    ],
    vpcs: [{ name: 'main', id: 'v1' }],
    history: 'event … hunter2-secret …',
    secrets: ['hunter2-secret'],
  };

  it('all hold', () => {
    const expect_ = resolveReferences(
      {
        status: 'failed' as const,
        failure: { step: 'pooler', message: 'too many' },
        outputs: { service_id: '${{ cloud.services.shop.id }}' },
        steps: { create: 'compensated' as const },
        calls: { 'service.create': 1, 'service.delete': 0 },
        callOrder: ['service.create', 'service.enablePooler', 'service.delete'] as ActionName[],
        cloud: {
          services: {
            shop: { status: 'READY', environment: 'PROD' as const, vpc: 'main' },
            gone: 'absent' as const,
          },
        },
      },
      ids,
    );
    expect(unmetExpectations(expect_, outcome, ids)).toEqual([]);
  });

  it('each that does not is one mismatch', () => {
    const found = unmetExpectations(
      {
        status: 'succeeded',
        steps: { pooler: 'done', nope: 'done' },
        calls: { 'service.create': 2 },
        callOrder: ['service.delete', 'service.create', 'service.stop'],
        cloud: { services: { shop: 'absent', other: { status: 'READY' } } },
        noSecretsInHistory: true,
      },
      outcome,
      ids,
    );
    expect(found.map((m) => [m.what, m.expected, m.actual])).toEqual([
      ['status', 'succeeded', 'failed'],
      ['steps.pooler', 'done', 'failed'],
      ['steps.nope', 'done', '(no such step)'],
      ['calls.service.create', 2, 1],
      [
        'callOrder',
        ['service.delete', 'service.create', 'service.stop'],
        ['service.create', 'service.delete', 'service.stop (never called)'],
      ],
      ['cloud.services.shop', 'absent', 'READY (?)'],
      ['cloud.services.other', 'present', 'absent'],
      ['noSecretsInHistory', 'no secret value in the history', '1 secret value found in clear'],
    ]);
  });

  it('never shows a secret output, or the value expected of it, in a mismatch', () => {
    const [mismatch] = unmetExpectations({ status: 'failed', outputs: { password: 'other' } }, outcome, ids);
    expect(mismatch).toEqual({
      what: 'outputs.password',
      expected: '••••••',
      actual: '••••••',
      message: 'secret output password differs from the expected value',
    });
  });
});

describe('the history searched for secrets', () => {
  it('holds every string and every byte field read as text', () => {
    const history = {
      events: [
        {
          eventId: 1,
          attributes: { input: { payloads: [{ data: Buffer.from('{"password":"hunter2-secret"}') }] } },
        },
        { eventId: 2, failure: { message: 'step failed: token abc-123' }, raw: new Uint8Array([104, 105]) },
      ],
    };
    const text = historyText(history);
    expect(text).toContain('hunter2-secret');
    expect(text).toContain('token abc-123');
    expect(text).toContain('hi');
  });
});
