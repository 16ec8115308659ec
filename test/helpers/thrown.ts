/** The error `action` throws; fails the test when it returns instead. */
export function thrownBy(action: () => unknown): Error & { code?: string } {
  try {
    action();
  } catch (error) {
    if (error instanceof Error) return error as Error & { code?: string };
    throw error;
  }
  throw new Error('expected an error, but the call returned');
}
