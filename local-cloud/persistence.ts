// The optional state file, and the promise behind every answer of a local cloud that has one: a
// change is on disk before the request that made it is answered.
//
// Why whole-file snapshots with group commit rather than an append-only journal: handlers change
// records in place and only say "something changed" (Store.changed()), so a journal would need a
// diff or a change log threaded through every handler, plus replay and compaction code. A snapshot
// needs none of that, and the file on disk is always one complete, schema-checked state. Each
// commit writes a temp file, fsyncs it, renames it over the state file and fsyncs the directory
// (so the rename itself survives a power cut, not only a killed process). Commits are grouped:
// every request that changed something while a commit was being written waits for the next one,
// which covers them all, so throughput grows with concurrency instead of paying one fsync per
// request. The cost of a commit grows with the state's size; a rehearsal cloud holds thousands of
// resources, not millions.
//
// The file holds the projects' key pairs, so it is created readable by its owner only. Temp files
// are named `<file>.<pid>.<n>.tmp`; one left by a killed process is removed at the next start (one
// state file belongs to one local cloud at a time).
import { open, readFile, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { formatIssues } from './config';
import { PersistedState } from './state';

export class StateFileError extends Error {
  readonly code = 'LOCAL_CLOUD_STATE_FILE_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'StateFileError';
  }
}

/** A commit failed: the change is in memory but not on disk, and its request was not acknowledged. */
export class StateFileWriteError extends Error {
  readonly code = 'LOCAL_CLOUD_STATE_FILE_WRITE_FAILED';
  constructor(path: string, options: { cause: unknown }) {
    const reason = (options.cause as NodeJS.ErrnoException | undefined)?.code ?? 'error';
    super(`state file ${path}: could not save the change (${reason}); it is not durable`, options);
    this.name = 'StateFileWriteError';
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

function tempPattern(path: string): RegExp {
  const escaped = basename(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped}\\.\\d+\\.\\d+\\.tmp$`);
}

/** Removes temp files a killed local cloud left next to the state file; returns their names. */
export async function removeOrphanedTempFiles(path: string): Promise<string[]> {
  const pattern = tempPattern(path);
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  const orphans = names.filter((name) => pattern.test(name));
  for (const name of orphans) await unlink(join(dirname(path), name)).catch(() => undefined);
  return orphans;
}

/** Cleans up after a crash, then loads the state file (undefined when there is none yet). */
export async function openStateFile(path: string): Promise<PersistedState | undefined> {
  await removeOrphanedTempFiles(path);
  return loadStateFile(path);
}

/** temp + fsync + rename + directory fsync: after it resolves, `text` is the file, crash or not. */
async function writeDurably(path: string, temp: string, text: string): Promise<void> {
  try {
    const file = await open(temp, 'w', 0o600);
    try {
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  const directory = await open(dirname(path), 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

/**
 * Group commit of whole-state snapshots. `noteChange()` after every change; `waitDurable()`
 * resolves once every change noted so far is on disk (rejects with StateFileWriteError if the
 * commit that was to cover it failed).
 */
export class DurableStateFile {
  /** Changes noted so far, and how many of them the file on disk is known to hold. */
  private noted = 0;
  private durable = 0;
  private committing: Promise<void> | undefined;
  private sequence = 0;

  constructor(
    readonly path: string,
    private readonly snapshot: () => PersistedState,
    private readonly onError: (error: StateFileWriteError) => void,
  ) {}

  /**
   * Records a change and starts a commit for it. Answers wait for it in `waitDurable`; the commit
   * starts on its own too, so a change whose answer never goes out (a dropped connection, a
   * lifecycle step) still reaches the disk.
   */
  noteChange(): void {
    this.noted++;
    // A failure is reported once, by commit(); the requests waiting for it get it as their answer.
    this.commitUntil(this.noted).catch(() => undefined);
  }

  /** Resolves once every change noted so far is durable. */
  waitDurable(): Promise<void> {
    return this.durable >= this.noted ? Promise.resolve() : this.commitUntil(this.noted);
  }

  /** Writes the whole state now, changed or not (start-up, close). */
  flush(): Promise<void> {
    this.noted++;
    return this.commitUntil(this.noted);
  }

  private async commitUntil(target: number): Promise<void> {
    while (this.durable < target) {
      // One commit at a time; whoever arrives while one is being written waits for it and then
      // for the next, which picks up every change made in the meantime.
      this.committing ??= this.commit().finally(() => (this.committing = undefined));
      await this.committing;
    }
  }

  private async commit(): Promise<void> {
    // Let the requests that are already being handled in this turn of the event loop join in.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const covers = this.noted;
    const temp = `${this.path}.${process.pid}.${++this.sequence}.tmp`;
    try {
      await writeDurably(this.path, temp, JSON.stringify(this.snapshot()));
    } catch (error) {
      const failure = new StateFileWriteError(this.path, { cause: error });
      this.onError(failure);
      throw failure;
    }
    this.durable = Math.max(this.durable, covers);
  }
}
