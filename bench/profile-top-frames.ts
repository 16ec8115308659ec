// A V8 CPU profile (`node --cpu-prof`, one .cpuprofile per thread) as Markdown: where the sampled
// time went by area (a tideline room, an npm package, Node's internals, the garbage collector) and
// the functions with the most self time. The figures' profiles are kept with their results in
// this form (bench/results/profiles/), which a reader can diff between two trees.
//
//   node bench/build/bench/profile-top-frames.js DIR|FILE… [--top=30] [--title=TEXT] [--root=CHECKOUT]
//
// --root: the checkout the profiled worker ran from (default this one), so its files read as rooms.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './lib/repo';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

/** Self time, µs, per node id of one profile. */
function selfTimes(profile: CpuProfile): Map<number, number> {
  const times = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // A sample's time is the gap to the next sample (V8's own convention in DevTools).
  for (let index = 0; index < samples.length; index++) {
    const id = samples[index]!;
    const next = deltas[index + 1] ?? 0;
    times.set(id, (times.get(id) ?? 0) + Math.max(0, next));
  }
  return times;
}

/** Where a frame's code lives, relative to the repository or as `package: file`. */
export function frameLocation(url: string, root: string = REPO_ROOT): string {
  if (url === '') return '';
  if (url.startsWith('node:')) return url;
  const file = url.startsWith('file://') ? decodeURIComponent(url.slice('file://'.length)) : url;
  const modules = file.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const rest = file.slice(modules + '/node_modules/'.length).split('/');
    const name = rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? '');
    return `${name}: ${rest.slice(name.split('/').length).join('/')}`;
  }
  if (!path.isAbsolute(file)) return file;
  const relative = path.relative(root, file);
  // Another checkout (a tree profiled for comparison): from its dist/ on.
  const dist = file.lastIndexOf('/dist/');
  return relative.startsWith('..') && dist !== -1 ? file.slice(dist + 1) : relative;
}

/** The area a frame's time is counted under in the summary. */
export function frameArea(frame: CallFrame, root: string = REPO_ROOT): string {
  const { functionName, url } = frame;
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const location = frameLocation(url, root);
  const colon = location.indexOf(': ');
  if (colon !== -1) return location.slice(0, colon);
  // The workflow sandbox runs the bundle (tideline's workflows and dsl, the SDK's workflow library).
  if (location.includes('workflow-bundle')) return 'workflow bundle';
  if (location.startsWith('evalmachine.')) return 'workflow sandbox (vm glue)';
  if (location.startsWith('wasm:')) return 'wasm';
  // dist/<room>/…, bench/build/<room>/… or <room>/… of this repository.
  const parts = location.split('/');
  const room =
    parts[0] === 'dist' ? parts[1] : parts[0] === 'bench' && parts[1] === 'build' ? parts[2] : parts[0];
  return room === undefined || location.startsWith('..') || parts.length === 1
    ? location
    : `tideline ${room}/`;
}

interface Tally {
  area: string;
  label: string;
  micros: number;
}

function profileFiles(inputs: readonly string[]): string[] {
  return inputs.flatMap((input) =>
    statSync(input).isDirectory()
      ? readdirSync(input)
          .filter((name) => name.endsWith('.cpuprofile'))
          .sort()
          .map((name) => path.join(input, name))
      : [input],
  );
}

const ms = (micros: number) => (micros / 1000).toFixed(0);
const share = (part: number, whole: number) => `${((100 * part) / Math.max(whole, 1)).toFixed(1)} %`;

/** The Markdown report of the profiles in `inputs`. */
export function topFramesReport(
  inputs: readonly string[],
  top: number,
  title: string,
  root: string = REPO_ROOT,
): string {
  const frames = new Map<string, Tally>();
  const threads: Array<[string, number]> = [];
  for (const file of profileFiles(inputs)) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    let threadMicros = 0;
    for (const [id, micros] of selfTimes(profile)) {
      const frame = byId.get(id)?.callFrame;
      if (frame === undefined || frame.functionName === '(idle)') continue;
      threadMicros += micros;
      const location = frameLocation(frame.url, root);
      const name = frame.functionName || '(anonymous)';
      // A regular expression's frame is named by its whole source.
      const shown = name.length > 80 ? `${name.slice(0, 77)}...` : name;
      const label = `${shown}${location ? ` ${location}:${frame.lineNumber + 1}` : ''}`;
      const tally = frames.get(label) ?? { area: frameArea(frame, root), label, micros: 0 };
      tally.micros += micros;
      frames.set(label, tally);
    }
    threads.push([path.basename(file), threadMicros]);
  }
  const total = threads.reduce((sum, [, micros]) => sum + micros, 0);
  const areas = new Map<string, number>();
  for (const tally of frames.values()) areas.set(tally.area, (areas.get(tally.area) ?? 0) + tally.micros);
  const lines = [
    `# ${title}`,
    '',
    `Sampled CPU, idle left out: ${ms(total)} ms over ${threads.length} threads.`,
    '',
  ];
  lines.push('| thread profile | ms | share |', '| --- | --: | --: |');
  for (const [name, micros] of threads) lines.push(`| ${name} | ${ms(micros)} | ${share(micros, total)} |`);
  lines.push('', '| area | ms | share |', '| --- | --: | --: |');
  for (const [area, micros] of [...areas].sort((a, b) => b[1] - a[1]))
    lines.push(`| ${area} | ${ms(micros)} | ${share(micros, total)} |`);
  lines.push('', `| function (self time, top ${top}) | area | ms | share |`, '| --- | --- | --: | --: |');
  for (const tally of [...frames.values()].sort((a, b) => b.micros - a.micros).slice(0, top))
    lines.push(
      `| ${tally.label.replaceAll('|', '\\|')} | ${tally.area} | ${ms(tally.micros)} | ${share(tally.micros, total)} |`,
    );
  return lines.join('\n') + '\n';
}

function main(argv: readonly string[]): void {
  const flag = (name: string) => argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const inputs = argv.filter((arg) => !arg.startsWith('--'));
  if (inputs.length === 0) {
    process.stderr.write('usage: profile-top-frames DIR|FILE… [--top=30] [--title=TEXT]\n');
    process.exitCode = 2;
    return;
  }
  const top = Number(flag('top') ?? 30);
  const root = flag('root');
  process.stdout.write(
    topFramesReport(
      inputs,
      top,
      flag('title') ?? 'CPU profile',
      root === undefined ? REPO_ROOT : path.resolve(root),
    ),
  );
}

if (require.main === module) main(process.argv.slice(2));
