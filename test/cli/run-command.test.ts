import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finished, spawnCli } from '../support/run-node.js';

const tempDir = (): Promise<string> => mkdtemp(join(tmpdir(), 'leaseproof-run-'));
const stateEnv = async (): Promise<NodeJS.ProcessEnv> => ({
  LEASEPROOF_STATE_DIR: await tempDir(),
  DATABASE_URL: '',
  TOXIPROXY_URL: '',
  LEASEPROOF_ENV: '',
});

describe('leaseproof run / suite', () => {
  it('run judges a scenario per queue, prints the verdict table, writes the reports, and exits by the verdict', async () => {
    const out = await tempDir();
    const result = await finished(
      spawnCli(
        [
          'run',
          'scenarios/pause-past-lease.yaml',
          '--queue',
          'reference',
          '--queue',
          'unconditional-ack',
          '--out',
          out,
          '--json',
          '--epsilon',
          '12ms',
        ],
        await stateEnv(),
      ),
    );
    expect(result.code, result.stderr).toBe(1);
    const verdict = JSON.parse(result.stdout) as {
      dir: string;
      outcomes: { queue: string; verdict: string; checkers: Record<string, string> }[];
    };
    expect(verdict.outcomes.map((o) => [o.queue, o.verdict])).toEqual([
      ['reference', 'valid'],
      ['unconditional-ack', 'invalid'],
    ]);
    expect(verdict.outcomes[1]?.checkers['no-stale-ack']).toBe('invalid');
    for (const file of ['verdict.json', 'summary.md', 'junit.xml']) {
      expect(existsSync(join(verdict.dir, file)), file).toBe(true);
    }
    // --epsilon overrode the scenario's own ε, and the report says which ε judged it.
    const written = JSON.parse(await readFile(join(verdict.dir, 'verdict.json'), 'utf8')) as {
      scenarios: { options: { epsilonMs: number } }[];
    };
    expect(written.scenarios.map((s) => s.options.epsilonMs)).toEqual([12, 12]);
    expect(await readFile(join(out, 'index.html'), 'utf8')).toContain(
      verdict.dir.replace(/^.*\//, ''),
    );
    // Progress went to stderr while it ran.
    expect(result.stderr).toMatch(
      /pause-past-lease × reference: faults, \d+\/4 jobs, faults: pause@w1/,
    );
  });

  it('--expect decides the exit code and is written into verdict.json, summary.md and index.html', async () => {
    const out = await tempDir();
    const result = await finished(
      spawnCli(
        [
          ...['run', 'scenarios/pause-past-lease.yaml', '--queue', 'unconditional-ack'],
          ...['--expect', 'unconditional-ack=invalid', '--out', out, '--json'],
        ],
        await stateEnv(),
      ),
    );
    // INVALID, as it was to be: exit 0.
    expect(result.code, result.stderr).toBe(0);
    const line = 'expectations met: unconditional-ack invalid';
    expect(result.stderr).toContain(line);
    const printed = JSON.parse(result.stdout) as { dir: string; expectations: { met: boolean } };
    expect(printed.expectations.met).toBe(true);
    const written = JSON.parse(await readFile(join(printed.dir, 'verdict.json'), 'utf8')) as {
      verdict: string;
      expectations: { outcome: string };
    };
    expect(written).toMatchObject({ verdict: 'invalid', expectations: { outcome: 'met' } });
    expect(await readFile(join(printed.dir, 'summary.md'), 'utf8')).toMatch(
      /^# leaseproof run \S+: INVALID, expectations met\n/,
    );
    expect(await readFile(join(out, 'index.html'), 'utf8')).toContain(line);
  });

  it('a bad scenario file is one clear error naming the file and the path in it, exit 2', async () => {
    const dir = await tempDir();
    const file = join(dir, 'bad.yaml');
    await writeFile(
      file,
      'name: bad\ndescription: d\nseed: 1\nlease: { duration: 1s, heartbeat: 250ms, extendBy: 1s, poll: 50ms }\n' +
        'workers: 2\njobs: { count: 1, handler: { units: 1, unit: { dist: fixed, duration: 10ms } } }\n' +
        'faults:\n  - { at: 1s, pause: { worker: 2, for: soon } }\ncheck: [no-stale-ack]\n',
    );
    const result = await finished(spawnCli(['run', file], await stateEnv()));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('bad.yaml');
    expect(result.stderr).toMatch(/faults\[0\]\.pause\.for/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('a bad --epsilon is one clear error, exit 2, before anything starts', async () => {
    const result = await finished(
      spawnCli(['run', 'scenarios/pause-past-lease.yaml', '--epsilon', 'soon'], await stateEnv()),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--epsilon takes milliseconds or a duration');
    expect(result.stderr).not.toContain('starting');
  });

  it('a bad --expect is one clear error, exit 2, before anything starts (not after the suite)', async () => {
    const result = await finished(
      spawnCli(
        ['run', 'scenarios/pause-past-lease.yaml', '--expect', 'reference=fine'],
        await stateEnv(),
      ),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '--expect takes queue=valid or queue=invalid; got "reference=fine"',
    );
    expect(result.stderr).not.toContain('starting');
  });

  it('a library setting the library lacks, or one given to a queue without settings, is one clear error, exit 2, before anything starts', async () => {
    const misspelt = await finished(
      spawnCli(
        [
          'run',
          'scenarios/pause-past-lease.yaml',
          '--queue',
          'pg-boss',
          '--setting',
          'expireInSecond=5m',
        ],
        await stateEnv(),
      ),
    );
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toMatch(
      /pg-boss has no setting "expireInSecond"; its settings are .*expireInSeconds/,
    );
    expect(misspelt.stderr).not.toContain('starting');
    expect(misspelt.stderr).not.toMatch(/\n\s+at /);
    const none = await finished(
      spawnCli(
        [
          'run',
          'scenarios/pause-past-lease.yaml',
          '--queue',
          'reference',
          '--setting',
          'JobTimeout=1m',
        ],
        await stateEnv(),
      ),
    );
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('queue "reference" declares no library settings');
    const shape = await finished(
      spawnCli(
        ['run', 'scenarios/pause-past-lease.yaml', '--setting', 'JobTimeout'],
        await stateEnv(),
      ),
    );
    expect(shape.code).toBe(2);
    expect(shape.stderr).toContain('--setting takes a library setting as name=value');
  });
});
