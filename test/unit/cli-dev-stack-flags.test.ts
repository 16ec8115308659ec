// The dev stack's flags: checked values, and a clear usage error naming the flag otherwise.
import { dialectFlag, numberFlag, portFlag } from '../../cli/dev-stack-flags';
import { CliError } from '../../cli/errors';

function usageError(run: () => unknown): CliError {
  try {
    run();
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error('expected a CliError');
}

describe('--dialect', () => {
  it('takes seed and current, and nothing when absent', () => {
    expect(dialectFlag('seed')).toBe('seed');
    expect(dialectFlag('current')).toBe('current');
    expect(dialectFlag(undefined)).toBeUndefined();
  });

  it('refuses anything else, naming the choices', () => {
    const error = usageError(() => dialectFlag('2026-08'));
    expect(error.code).toBe('CLI_USAGE');
    expect(error.message).toBe('--dialect must be one of seed, current');
    expect(error.hint).toContain('"2026-08"');
  });
});

describe('numbers and ports', () => {
  it('checks their ranges', () => {
    expect(portFlag('port', '0')).toBe(0);
    expect(usageError(() => portFlag('port', '70000')).message).toContain('--port');
    expect(numberFlag('time-scale', '0.5', 0.001, 1000)).toBe(0.5);
    expect(usageError(() => numberFlag('time-scale', 'fast', 0.001, 1000)).message).toContain('--time-scale');
  });
});
