import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_CHECKERS } from '../../src/checker/index.js';
import { queueNames } from '../../src/libraries/registry.js';
import { FAULT_KINDS } from '../../src/faults/fault-kinds.js';
import { scenarioSchema } from '../../src/scenario/scenario-schema.js';
import { ROOT, finished, spawnCli, type Finished } from '../support/run-node.js';

const PAUSE_PAST_LEASE = join(ROOT, 'scenarios/pause-past-lease.yaml');
const tempDir = (): Promise<string> => mkdtemp(join(tmpdir(), 'leaseproof-list-'));

// `list` and the commands below it fail or finish before anything starts: no server here.
async function leaseproof(args: string[], cwd?: string): Promise<Finished> {
  const env = {
    LEASEPROOF_STATE_DIR: await tempDir(),
    DATABASE_URL: '',
    TOXIPROXY_URL: '',
    LEASEPROOF_ENV: '',
  };
  return finished(spawnCli(args, env, cwd === undefined ? {} : { cwd }));
}

/** `list`'s output: each section's heading and its lines, as name → description. */
function sections(stdout: string): Map<string, Map<string, string>> {
  const parsed = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const line of stdout.trimEnd().split('\n')) {
    if (!line.startsWith(' ')) {
      expect(line, 'a heading').toMatch(/^[a-z]+ \(.*\):$/);
      current = new Map();
      parsed.set(line.replace(/ .*$/, ''), current);
      continue;
    }
    // Every line: a name, two spaces at least, and a description.
    const [, name = '', description = ''] = /^ {2}(\S+) {2,}(\S.*)$/.exec(line) ?? [];
    expect(description, `"${line}" has a name and a description`).not.toBe('');
    current?.set(name, description);
  }
  return parsed;
}

const SHIPPED = (async () =>
  (await readdir(join(ROOT, 'scenarios')))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.replace(/\.yaml$/, ''))
    .sort())();

describe('leaseproof list', () => {
  it('describes every queue, scenario, fault and checker in one line each', async () => {
    const result = await leaseproof(['list']);
    expect(result.code, result.stderr).toBe(0);
    const listed = sections(result.stdout);
    expect([...listed.keys()]).toEqual(['queues', 'scenarios', 'faults', 'checkers']);
    expect([...listed.get('queues')!.keys()]).toEqual(queueNames());
    expect(listed.get('queues')!.get('unconditional-ack')).toMatch(/^Known bad: /);
    expect([...listed.get('scenarios')!.keys()]).toEqual(await SHIPPED);
    // A scenario's description is a paragraph; the list keeps its first sentence.
    expect(listed.get('scenarios')!.get('crash-mid-handler')).toBe(
      'A worker is SIGKILLed in the middle of its handler.',
    );
    expect([...listed.get('faults')!.keys()]).toEqual([...FAULT_KINDS]);
    expect([...listed.get('checkers')!.keys()]).toEqual(ALL_CHECKERS.map((c) => c.name));
    expect(listed.get('checkers')!.get('no-stale-ack')).toMatch(/^I1: No write of a claim/);
    expect(result.stdout).toMatch(/^scenarios \(35 in \.\/scenarios\):$/m);
  });

  it('the fault-kind table and the scenario schema name the same kinds, in the same order', () => {
    const fault = scenarioSchema().definitions?.fault?.properties ?? {};
    expect(Object.keys(fault).filter((k) => k !== 'at')).toEqual([...FAULT_KINDS]);
  });

  it('in a project without ./scenarios lists the shipped ones and says where they are', async () => {
    const result = await leaseproof(['list'], await tempDir());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `scenarios (35, shipped with leaseproof at ${join(ROOT, 'scenarios')}; ` +
        'add ./scenarios or `leaseproof list DIR` for your own):',
    );
    expect([...sections(result.stdout).get('scenarios')!.keys()]).toEqual(await SHIPPED);
  });

  it("lists a folder's own scenarios, saying which file cannot be run or has no description", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'broken.yaml'), 'name: broken\nworkers: many\n');
    const withoutDescription = (await readFile(PAUSE_PAST_LEASE, 'utf8')).replace(
      /^description: >\n(?: {2}.*\n)+/m,
      '',
    );
    await writeFile(join(dir, 'terse.yaml'), withoutDescription);
    const result = await leaseproof(['list', dir]);
    expect(result.code, result.stderr).toBe(0);
    const scenarios = sections(result.stdout).get('scenarios')!;
    expect(scenarios.get('broken')).toMatch(/^\(cannot be run: invalid scenario .*broken\.yaml/);
    expect(scenarios.get('terse')).toBe('(the file has no description)');
    expect(result.stdout).toContain(`scenarios (2 in ${dir}):`);
  });

  it('a folder given that does not exist is an error naming it, exit 2', async () => {
    const cwd = await tempDir();
    const result = await leaseproof(['list', 'no-such-folder'], cwd);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd()).toBe(
      `leaseproof: no scenario folder at ${join(cwd, 'no-such-folder')}`,
    );
  });
});

describe('without ./scenarios, commands use the scenarios shipped with leaseproof', () => {
  // A mistyped queue stops each command after it chose its scenarios and before it starts.
  const STOP = ['--queue', 'refrence'];
  const shippedAt = `shipped with leaseproof at ${join(ROOT, 'scenarios')}`;

  it('suite, saying so in one line', async () => {
    const result = await leaseproof(['suite', ...STOP], await tempDir());
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      `using the 35 scenarios ${shippedAt}; add ./scenarios or \`leaseproof suite DIR\` for your own`,
    );
    expect(result.stderr).not.toContain('starting the');
  });

  it('mutants, pointing at --scenarios', async () => {
    const result = await leaseproof(['mutants', ...STOP], await tempDir());
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      `using the 35 scenarios ${shippedAt}; add ./scenarios or --scenarios DIR for your own`,
    );
  });

  it('but a project with ./scenarios uses its own, and says nothing', async () => {
    const cwd = await tempDir();
    await mkdir(join(cwd, 'scenarios'));
    await writeFile(join(cwd, 'scenarios/mine.yaml'), await readFile(PAUSE_PAST_LEASE, 'utf8'));
    const result = await leaseproof(['suite', ...STOP], cwd);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain('shipped');
  });

  it('a suite folder given that does not exist is an error naming it, exit 2', async () => {
    const cwd = await tempDir();
    const result = await leaseproof(['suite', 'mine'], cwd);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd()).toBe(`leaseproof: no scenario folder at ${join(cwd, 'mine')}`);
  });

  it('run takes a scenario by name, and says where it comes from', async () => {
    const result = await leaseproof(['run', 'pause-past-lease', ...STOP], await tempDir());
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(`using pause-past-lease as ${shippedAt}`);
    expect(result.stderr).toContain('unknown queue "refrence"');
  });

  it('run refuses an unknown scenario name, with a did-you-mean, before anything starts', async () => {
    const result = await leaseproof(['run', 'pause-past-lase'], await tempDir());
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd()).toBe(
      'leaseproof: no scenario file or scenario named "pause-past-lase"; did you mean pause-past-lease?',
    );
  });

  it('run refuses a missing file, with the file beside it that was meant', async () => {
    const result = await leaseproof(['run', 'scenarios/pause-past-lease.yml']);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd()).toBe(
      'leaseproof: no scenario file at scenarios/pause-past-lease.yml; ' +
        'did you mean scenarios/pause-past-lease.yaml?',
    );
  });

  it('run refuses a missing file named like a shipped scenario, pointing at its name', async () => {
    const result = await leaseproof(['run', './pause-past-lease.yaml'], await tempDir());
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd()).toBe(
      'leaseproof: no scenario file at ./pause-past-lease.yaml; ' +
        'did you mean the scenario pause-past-lease (leaseproof run pause-past-lease)?',
    );
  });
});

describe('list into a reader that stops reading', () => {
  it('ends quietly when the pipe closes (`leaseproof list | head -1`)', async () => {
    const child = spawnCli(['list'], { LEASEPROOF_STATE_DIR: await tempDir() });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Read one chunk, then close our end, as `head -1` does.
    await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
    child.stdout?.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toMatch(/EPIPE|^\s+at /m);
    expect(code).toBe(0);
  });
});

describe('leaseproof list --queue', () => {
  it("names a library's own settings, its defaults and its values at a 1 s lease", async () => {
    const { builtInQueues } = await import('../../src/libraries/registry.js');
    const withSettings = Object.values(builtInQueues).filter((q) => q.settings !== undefined);
    for (const queue of withSettings.slice(0, 2)) {
      const result = await leaseproof(['list', '--queue', queue.name]);
      expect(result.code).toBe(0);
      for (const s of queue.settings!.settings)
        expect(result.stdout).toContain(`Setting ${s.name}:`);
      expect(result.stdout).toMatch(/Time factor k = /);
    }
    const plain = await leaseproof(['list', '--queue', 'reference']);
    expect(plain.stdout).toMatch(/settings: none of its own/);
  });
});
