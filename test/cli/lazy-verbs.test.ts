// Verbs load lazily: the program and every verb's options are defined up front, and a verb's
// work (most of leaseproof's code) is imported by its action. These tests keep it so — a static
// import of the work from a definition would bring `--version` back to most of a second — and
// keep the hook that registers tsx running before every action, where a user's TypeScript
// adapter may load.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/main.js';
import { ROOT, finished } from '../support/run-node.js';

const TSX = pathToFileURL(createRequire(`${ROOT}package.json`).resolve('tsx')).href;

// A loader hook that writes down every module the child resolves, one URL a line.
const RECORDER = `
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(file, resolved.url + '\\n');
  return resolved;
}
`;

/** The modules `leaseproof <args>`, run from source, resolves. */
async function modulesLoadedBy(args: string[]): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'leaseproof-lazy-'));
  const file = join(dir, 'loaded.txt');
  await writeFile(file, '');
  await writeFile(join(dir, 'recorder.mjs'), RECORDER);
  await writeFile(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module';\n` +
      `register('./recorder.mjs', import.meta.url, { data: { file: ${JSON.stringify(file)} } });\n`,
  );
  const child = spawn(
    process.execPath,
    ['--import', TSX, '--import', join(dir, 'register.mjs'), 'src/cli/bin.ts', ...args],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const result = await finished(child);
  expect(result.code, result.stderr).toBe(0);
  return (await readFile(file, 'utf8')).split('\n').filter((line) => line !== '');
}

// A verb's work, and the libraries only work needs: the suite runner (and the YAML, schema and
// property-testing libraries behind it), scenarios, checkers, simulation, reports. The parser of
// durations is not work: `--epsilon` shares it with scenario files.
const WORK = [
  /\/src\/cli\/[a-z-]+-action\.ts$/,
  /\/src\/run\/run-scenarios\.ts$/,
  /\/src\/scenario\/(?!duration\.ts$)/,
  /\/src\/(checker|sim|report|explore|mutants|tune|replay)\//,
  /\/node_modules\/(yaml|ajv|fast-check|csv-parse|echarts)\//,
];

describe('help and --version', () => {
  for (const args of [['--version'], ['--help'], ['run', '--help']]) {
    it(`${args.join(' ')} loads no verb's work`, async () => {
      const loaded = await modulesLoadedBy(args);
      expect(loaded.some((url) => url.endsWith('/src/cli/main.ts'))).toBe(true);
      expect(loaded.filter((url) => WORK.some((work) => work.test(url)))).toEqual([]);
    });
  }
});

/** Every command of `program` that has an action of its own (`env up`, not `env`). */
function leaves(command: Command, path: string[] = []): string[][] {
  if (command.commands.length === 0) return [path];
  return command.commands.flatMap((c) => leaves(c, [...path, c.name()]));
}

describe('beforeAction (where the CLI registers tsx)', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    process.exitCode = undefined;
  });

  /** Parses `args`, output silenced: `beforeAction` if it ran, then how the parse ended. */
  async function parse(args: string[]): Promise<string[]> {
    vi.stubEnv('LEASEPROOF_STATE_DIR', await mkdtemp(join(tmpdir(), 'leaseproof-lazy-state-')));
    const events: string[] = [];
    const program = buildProgram({
      beforeAction: () => {
        events.push('beforeAction');
        return Promise.resolve();
      },
    });
    const silent = { writeOut: () => undefined, writeErr: () => undefined };
    const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
    for (const command of all(program)) command.configureOutput(silent);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await program.parseAsync(['node', 'leaseproof', ...args]);
      events.push('done');
    } catch {
      events.push('threw');
    } finally {
      vi.restoreAllMocks();
    }
    return events;
  }

  // A command line per verb that reaches its action and ends there at once, starting nothing.
  const missing = join(tmpdir(), 'leaseproof-no-such-file');
  const reachingTheAction: Record<string, string[] | undefined> = {
    'env up': ['env', 'up', '--env', 'no-such-provider'],
    'env status': ['env', 'status', '--json'],
    'env down': ['env', 'down'],
    // Its action may build toxiproxy-server (minutes): not run here.
    'env install-toxiproxy': undefined,
    // Its action may make a Python environment with pip (a minute): not run here.
    'env install-python': undefined,
    // Its action may build a Go program (a minute): not run here.
    'env install-go': undefined,
    // Its action may build the Java jar with Maven (a minute): not run here.
    'env install-java': undefined,
    // Its action may download Node 22 and pg-boss 12 from the npm registry: not run here.
    'env install-node22': undefined,
    check: ['check', missing],
    run: ['run', 'no-such-scenario'],
    suite: ['suite', missing],
    list: ['list', missing],
    explore: ['explore', '--runs', '0'],
    mutants: ['mutants', '--min-kills', '0'],
    tune: ['tune', missing],
    replay: ['replay', missing],
    merge: ['merge', missing],
    conform: ['conform', '--queue', 'reference', '--env', 'no-such-provider'],
    simulate: ['simulate', 'no-such-scenario'],
  };

  it('has a command line here for every verb', () => {
    expect(
      leaves(buildProgram())
        .map((path) => path.join(' '))
        .sort(),
    ).toEqual(Object.keys(reachingTheAction).sort());
  });

  for (const [verb, args] of Object.entries(reachingTheAction)) {
    it.skipIf(args === undefined)(`runs before the action of ${verb}`, async () => {
      expect((await parse(args ?? []))[0]).toBe('beforeAction');
    });
  }

  for (const args of [[], ['--version'], ['--help'], ['help', 'run'], ['run', '--help'], ['rn']]) {
    it(`does not run for \`leaseproof ${args.join(' ')}\``, async () => {
      expect(await parse(args)).toEqual(['threw']);
    });
  }
});
