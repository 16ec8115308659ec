// The optional state file: loaded on start, saved after changes (debounced) with an atomic write
// (temp file + rename), so a crash mid-write never leaves a torn file. The file holds the
// projects' key pairs, so it is created readable by its owner only.
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { formatIssues } from './config';
import { PersistedState } from './state';

export class StateFileError extends Error {
  readonly code = 'SIMULATOR_STATE_FILE_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'StateFileError';
  }
}

export async function loadStateFile(path: string): Promise<PersistedState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateFileError(
      `state file ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new StateFileError(`state file ${path}: not valid JSON`);
  }
  const result = PersistedState.safeParse(raw);
  if (!result.success) throw new StateFileError(`state file ${path}: ${formatIssues(result.error.issues)}`);
  return result.data;
}

export class StateFileWriter {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private sequence = 0;

  constructor(
    private readonly path: string,
    private readonly snapshot: () => PersistedState,
    private readonly debounceMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Saves soon; many changes in a burst make one write. */
  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.write();
    }, this.debounceMs);
    this.timer.unref();
  }

  /** Writes now (and waits for any write under way). */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    await this.write();
  }

  private write(): Promise<void> {
    // Writes are chained so two never race on the rename.
    this.writing = this.writing.then(async () => {
      const temp = `${this.path}.${process.pid}.${++this.sequence}.tmp`;
      try {
        await writeFile(temp, JSON.stringify(this.snapshot()), { mode: 0o600 });
        await rename(temp, this.path);
      } catch (error) {
        await unlink(temp).catch(() => undefined);
        this.onError(error);
      }
    });
    return this.writing;
  }
}
