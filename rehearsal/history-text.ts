// A run's history as Temporal stores it, as one text to search: every string and every byte field
// read as UTF-8 (an unencrypted payload shows its JSON; an encrypted one shows ciphertext).
export function historyText(history: unknown): string {
  const parts: string[] = [];
  const stack: unknown[] = [history];
  for (let value = stack.pop(); stack.length > 0 || value !== undefined; value = stack.pop()) {
    if (typeof value === 'string') parts.push(value);
    else if (value instanceof Uint8Array) parts.push(Buffer.from(value).toString('utf8'));
    else if (value !== null && typeof value === 'object') stack.push(...Object.values(value));
  }
  return parts.join('\n');
}
