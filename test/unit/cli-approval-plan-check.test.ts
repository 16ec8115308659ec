// Approving is two steps (cli/approval-plan-check.ts): the plan and its fingerprint first, then a
// decision for that fingerprint. The fingerprint follows the plan's content (not its key order);
// without --plan nothing may be signed; a stale fingerprint is refused with APPROVAL_PLAN_CHANGED
// and the new plan shown; on a terminal only an explicit yes stands in for --plan.
import { PassThrough } from 'node:stream';
import { checkPlanSeen, fingerprintOption, type PlanCheck } from '../../cli/approval-plan-check';
import type { CliContext } from '../../cli/context';
import { CliError, EXIT } from '../../cli/errors';
import { planFingerprint, PLAN_FINGERPRINT_DIGITS } from '../../activities/approval-signatures';
import type { ApprovalPlan } from '../../contract/approval-messages';

const plan: ApprovalPlan = {
  definitionHash: 'd'.repeat(64),
  changes: [
    { stepKey: 'promote', action: 'service.update', with: { service_id: 's1', environment: 'PROD' } },
  ],
};
const changed: ApprovalPlan = {
  ...plan,
  changes: [
    { stepKey: 'promote', action: 'service.update', with: { service_id: 's2', environment: 'PROD' } },
  ],
};

interface Captured {
  ctx: CliContext;
  out: () => string;
  err: () => string;
}

function context(options: { json?: boolean; tty?: boolean; answer?: string } = {}): Captured {
  const collect = (): { stream: PassThrough; text: () => string } => {
    const stream = new PassThrough();
    const chunks: string[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    return { stream, text: () => chunks.join('') };
  };
  const stdout = collect();
  const stderr = collect();
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  stdin.isTTY = options.tty === true;
  if (options.answer !== undefined) stdin.end(`${options.answer}\n`);
  const ctx: CliContext = {
    stdout: stdout.stream,
    stderr: stderr.stream,
    stdin,
    env: {},
    cwd: '/',
    globals: { json: options.json === true },
    interrupted: new Promise(() => undefined),
  };
  return { ctx, out: stdout.text, err: stderr.text };
}

const check = (given: string | undefined, shown: ApprovalPlan = plan): PlanCheck => ({
  workflowId: 'promote-billing',
  stepKey: 'sign_off',
  plan: shown,
  given,
  approveWords: ['approve', 'promote-billing', '--by', 'alice'],
});

const flushed = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('planFingerprint', () => {
  test('hex digits of the canonical plan: key order does not matter, content does', () => {
    const fingerprint = planFingerprint(plan);
    expect(fingerprint).toMatch(new RegExp(`^[0-9a-f]{${PLAN_FINGERPRINT_DIGITS}}$`));
    const reordered = {
      changes: [
        { with: { environment: 'PROD', service_id: 's1' }, action: 'service.update', stepKey: 'promote' },
      ],
      definitionHash: 'd'.repeat(64),
    } as ApprovalPlan;
    expect(planFingerprint(reordered)).toBe(fingerprint);
    expect(planFingerprint(changed)).not.toBe(fingerprint);
    expect(planFingerprint({ ...plan, definitionHash: 'e'.repeat(64) })).not.toBe(fingerprint);
  });
});

describe('fingerprintOption', () => {
  test('takes the digits, any case, and refuses anything else as a usage error', () => {
    expect(fingerprintOption(undefined)).toBeUndefined();
    expect(fingerprintOption(' ABCDEF0123456789 ')).toBe('abcdef0123456789');
    for (const bad of ['', 'abc', 'g'.repeat(16), `${'a'.repeat(16)}0`, 'sha256:abc']) {
      expect(() => fingerprintOption(bad)).toThrow(CliError);
    }
  });
});

describe('checkPlanSeen', () => {
  test('the fingerprint of the plan the step guards now: sign', async () => {
    const { ctx, out, err } = context();
    expect(await checkPlanSeen(ctx, check(planFingerprint(plan)))).toBe(true);
    await flushed();
    expect(out() + err()).toBe('');
  });

  test('without --plan and no terminal: the plan, its fingerprint and the command; nothing signed', async () => {
    const { ctx, out, err } = context();
    expect(await checkPlanSeen(ctx, check(undefined))).toBe(EXIT.FAILED);
    await flushed();
    const fingerprint = planFingerprint(plan);
    expect(out()).toContain('promote: service.update service_id=s1 environment=PROD');
    expect(out()).toContain(`plan fingerprint: ${fingerprint}`);
    expect(err()).toContain('nothing was signed');
    expect(err()).toContain(`approve promote-billing --by alice --plan ${fingerprint}`);
  });

  test('a stale fingerprint: refused with APPROVAL_PLAN_CHANGED, the new plan shown', async () => {
    const { ctx, out } = context({ json: true });
    expect(await checkPlanSeen(ctx, check(planFingerprint(plan), changed))).toBe(EXIT.FAILED);
    await flushed();
    const document = JSON.parse(out()) as {
      error: { code: string };
      fingerprint: string;
      plan: ApprovalPlan;
    };
    expect(document.error.code).toBe('APPROVAL_PLAN_CHANGED');
    expect(document.fingerprint).toBe(planFingerprint(changed));
    expect(document.plan).toEqual(changed);
  });

  test('without --plan in JSON: APPROVAL_PLAN_UNCONFIRMED with the plan and its fingerprint', async () => {
    const { ctx, out } = context({ json: true, tty: true });
    expect(await checkPlanSeen(ctx, check(undefined))).toBe(EXIT.FAILED);
    await flushed();
    const document = JSON.parse(out()) as { error: { code: string }; fingerprint: string };
    expect(document).toMatchObject({
      error: { code: 'APPROVAL_PLAN_UNCONFIRMED' },
      fingerprint: planFingerprint(plan),
    });
  });

  test('on a terminal a yes after the plan stands in for --plan; anything else signs nothing', async () => {
    const yes = context({ tty: true, answer: 'y' });
    expect(await checkPlanSeen(yes.ctx, check(undefined))).toBe(true);
    await flushed();
    expect(yes.out()).toContain(`plan fingerprint: ${planFingerprint(plan)}`);
    expect(yes.err()).toContain(`approve this plan (${planFingerprint(plan)})? [y/N]`);

    for (const answer of ['', 'n', 'yes please']) {
      const no = context({ tty: true, answer });
      expect(await checkPlanSeen(no.ctx, check(undefined))).toBe(EXIT.FAILED);
      await flushed();
      expect(no.err()).toContain('nothing was signed');
    }
  });
});
