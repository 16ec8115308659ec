// The commands the CLI suggests repeat how it was started (`node bin/tideline.js`
// until `npm link`), and `--help` keeps a description's wrapped lines together.
import { COMMANDS } from '../../cli/command-registry';
import { STATUS_SPEC } from '../../cli/commands/status';
import { invocationWords } from '../../cli/output/cli-invocation';
import { descriptionLines, renderCommandHelp } from '../../cli/output/help';
import { wrap } from '../../cli/output/style';

describe('suggested commands repeat how the CLI was started', () => {
  const env = { PATH: '/usr/local/bin:/usr/bin' };
  test.each([
    ['/work/tideline/bin/tideline.js', '/work/tideline', env, ['node', 'bin/tideline.js']],
    ['/work/tideline/bin/tideline.js', '/tmp', env, ['node', '/work/tideline/bin/tideline.js']],
    ['/usr/local/bin/tideline', '/tmp', env, ['tideline']],
    ['/opt/tl/bin/tideline', '/tmp', env, ['/opt/tl/bin/tideline']],
    [
      '/work/tideline/node_modules/.bin/tideline',
      '/work/tideline',
      { ...env, npm_command: 'exec' },
      ['npx', 'tideline'],
    ],
    ['/work/node_modules/jest/bin/jest.js', '/work', env, ['tideline']],
    [
      '/work/tideline/bin/tideline.js',
      '/work/tideline',
      { ...env, npm_command: 'exec' },
      ['node', 'bin/tideline.js'],
    ],
  ])('%s from %s', (script, cwd, environment, words) => {
    expect(invocationWords({ script, cwd, env: environment })).toEqual(words);
  });
});

describe('help', () => {
  test('a description wrapped over several lines prints without blank lines between them', () => {
    const text = renderCommandHelp(STATUS_SPEC, COMMANDS.status.summary);
    const description = STATUS_SPEC.description.join('\n');
    expect(text).toContain(`\n\n${description}\n\n`);
  });

  test('one long line per paragraph is wrapped, paragraphs apart', () => {
    const long = 'word '.repeat(40).trim();
    const lines = descriptionLines([long, 'short one', long]);
    expect(lines.every((line) => line.length <= 100)).toBe(true);
    expect(lines.filter((line) => line === '')).toHaveLength(2);
    expect(descriptionLines(['a', 'b', '', 'c'])).toEqual(['a', 'b', '', 'c']);
  });

  test('wrap breaks at spaces and indents what follows', () => {
    expect(wrap('    alpha beta gamma delta', 16, '    ')).toEqual(['    alpha beta', '    gamma delta']);
  });
});
