// How the user started this CLI, so the commands it suggests (approve, status, retry…) can be
// pasted back as they are: `tideline` only works after `npm link` (or a global install); a
// checkout runs `node bin/tideline.js`, npx runs `npx tideline`.
import path from 'node:path';

export interface Invocation {
  /** process.argv[1]: the script node ran (a symlink stays a symlink). */
  script: string | undefined;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** The words that start this CLI again from the user's shell. */
export function invocationWords({ script, cwd, env }: Invocation): string[] {
  if (script === undefined) return ['tideline'];
  const base = path.basename(script);
  // Anything else (a test runner, a script that imports the CLI) is no command line to repeat.
  if (base !== 'tideline' && base !== 'tideline.js') return ['tideline'];
  // npx runs the package's bin link; its npm_command is inherited by everything it starts, so
  // the link is what tells npx apart from a checkout's `node bin/tideline.js` run under npx.
  const viaNpx = env.npm_command === 'exec' && path.basename(path.dirname(script)) === '.bin';
  if (viaNpx) return ['npx', 'tideline'];
  const shown = path.isAbsolute(script) ? shortPath(script, cwd) : script;
  if (base === 'tideline.js') return ['node', shown];
  const onPath = (env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => dir !== '' && path.resolve(dir) === path.dirname(script));
  return onPath ? ['tideline'] : [shown.includes(path.sep) ? shown : `.${path.sep}${shown}`];
}

/** Relative to the working directory when it lies below it, else absolute. */
function shortPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

/** A word as a POSIX shell reads it back unchanged. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./[\]-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

let current: string[] | undefined;

/** This process's invocation (computed once). */
export function currentInvocation(): string[] {
  current ??= invocationWords({ script: process.argv[1], cwd: process.cwd(), env: process.env });
  return current;
}
