// What `tideline test` reports: the JUnit XML is well-formed (checked by a small strict parser
// below, no dependency) with one testcase per case and a failure for the failing one; the text
// report names each unmet expectation and the step trail; expectations compare what they should.
import type { CaseResult } from '../../cli/runbook-test/case-runner';
import { unmetExpectations, type Outcome } from '../../cli/runbook-test/expectations';
import { junitXml, xmlEscape } from '../../cli/runbook-test/junit';
import { caseLines, coverageLines, resultsJson } from '../../cli/runbook-test/test-report';
import type { RunbookCoverage } from '../../cli/runbook-test/coverage';
import { historyText } from '../../cli/runbook-test/history-text';
import { PLAIN_STYLE } from '../../cli/output/style';
import { resolveReferences } from '../../cli/runbook-test/cloud-references';
import type { RunReport } from '../../contract/run-messages';

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_][\w.-]*/;

function decodeEntities(text: string): string {
  const invalid = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.exec(text);
  if (invalid !== null) throw new Error(`a bare & at ${invalid.index}`);
  return text.replace(
    /&(amp|lt|gt|quot|apos);/g,
    (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e] ?? '',
  );
}

/** Parses the XML subset JUnit reports use, throwing on anything not well-formed. */
function parseXml(xml: string): XmlElement {
  let at = 0;
  const fail = (why: string): never => {
    throw new Error(`not well-formed at ${at}: ${why}: ${JSON.stringify(xml.slice(at, at + 40))}`);
  };
  const declaration = /^<\?xml version="1\.0" encoding="UTF-8"\?>\n/.exec(xml);
  if (declaration === null) fail('no XML declaration');
  at = declaration?.[0].length ?? 0;
  const skipSpace = () => {
    while (/\s/.test(xml[at] ?? '')) at++;
  };
  const element = (): XmlElement => {
    if (xml[at] !== '<') fail('expected <');
    at++;
    const name = NAME.exec(xml.slice(at))?.[0] ?? fail('expected a name');
    at += name.length;
    const attributes: Record<string, string> = {};
    for (;;) {
      skipSpace();
      if (xml.startsWith('/>', at)) {
        at += 2;
        return { name, attributes, children: [], text: '' };
      }
      if (xml[at] === '>') {
        at++;
        break;
      }
      const attribute = NAME.exec(xml.slice(at))?.[0] ?? fail('expected an attribute');
      at += attribute.length;
      if (xml[at] !== '=' || xml[at + 1] !== '"') fail('expected ="');
      const end = xml.indexOf('"', at + 2);
      if (end < 0) fail('unterminated attribute');
      const raw = xml.slice(at + 2, end);
      if (raw.includes('<')) fail('< in an attribute');
      if (attribute in attributes) fail(`attribute ${attribute} twice`);
      attributes[attribute] = decodeEntities(raw);
      at = end + 1;
    }
    const children: XmlElement[] = [];
    let text = '';
    for (;;) {
      if (xml.startsWith(`</${name}>`, at)) {
        at += name.length + 3;
        return { name, attributes, children, text };
      }
      if (xml.startsWith('</', at)) fail(`closing tag does not match <${name}>`);
      if (xml[at] === '<') children.push(element());
      else {
        const next = xml.indexOf('<', at);
        if (next < 0) fail(`<${name}> is never closed`);
        text += decodeEntities(xml.slice(at, next));
        at = next;
      }
    }
  };
  const root = element();
  skipSpace();
  if (at !== xml.length) fail('content after the root element');
  return root;
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
    for (const bad of ['<a><b></a></b>', '<a x="1" x="2"/>', '<a>&</a>', '<a>', '<a/><b/>', '<a x="<"/>'])
      expect(() => parseXml(head + bad)).toThrow(/not well-formed|bare &/);
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
      ['cloud.services.shop', 'absent', 'READY (?)'],
      ['cloud.services.other', 'present', 'absent'],
      ['noSecretsInHistory', 'no secret value in the history', '1 secret value found in clear'],
    ]);
  });

  it('never shows a secret output in a mismatch', () => {
    const [mismatch] = unmetExpectations({ status: 'failed', outputs: { password: 'other' } }, outcome, ids);
    expect(mismatch).toEqual({ what: 'outputs.password', expected: 'other', actual: '••••••' });
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
