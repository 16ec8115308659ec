// Awaiting what must fail: the error it fails with, when it is of the expected class. A promise
// that resolves, or rejects with anything else, fails the test with what it got.
export async function rejectionOf<E>(
  pending: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  const outcome = await pending.then(
    (value: unknown) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  if (!(outcome.error instanceof type)) throw outcome.error;
  return outcome.error;
}
