import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finished, spawnCli, type Finished } from '../support/run-node.js';

// Nothing here may start a server: every command fails on its command line, or is help.
const leaseproof = async (...args: string[]): Promise<Finished> =>
  finished(
    spawnCli(args, {
      LEASEPROOF_STATE_DIR: await mkdtemp(join(tmpdir(), 'leaseproof-usage-')),
      DATABASE_URL: '',
      TOXIPROXY_URL: '',
      LEASEPROOF_ENV: '',
    }),
  );

/** Exit 2, one `leaseproof:` line on stderr and nothing else, nothing on stdout. */
function expectUsageError(result: Finished, line: string | RegExp): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).not.toContain('starting the');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^leaseproof: /);
  if (typeof line === 'string') expect(lines[0]).toBe(line);
  else expect(lines[0]).toMatch(line);
}

describe('usage errors exit 2 with one line, not 1 (1 is "invalid")', () => {
  it('an unknown command, with a did-you-mean', async () => {
    expectUsageError(
      await leaseproof('suit'),
      "leaseproof: unknown command 'suit'; did you mean suite?",
    );
  });

  it('an unknown option, with a did-you-mean', async () => {
    expectUsageError(
      await leaseproof('suite', '--quue', 'reference'),
      "leaseproof: unknown option '--quue'; did you mean --queue?",
    );
  });

  it('an unknown option with nothing like it points at the help', async () => {
    expectUsageError(
      await leaseproof('env', 'up', '--frobnicate'),
      "leaseproof: unknown option '--frobnicate' (see leaseproof env up --help)",
    );
  });

  it('a missing argument', async () => {
    expectUsageError(
      await leaseproof('run'),
      "leaseproof: missing required argument 'files' (see leaseproof run --help)",
    );
  });

  it('a missing option value', async () => {
    expectUsageError(
      await leaseproof('run', 'scenarios/pause-past-lease.yaml', '--queue'),
      "leaseproof: option '--queue <name|path>' argument missing (see leaseproof run --help)",
    );
  });

  it('too many arguments', async () => {
    expectUsageError(
      await leaseproof('list', 'a', 'b'),
      /too many arguments for 'list'.*--help\)$/,
    );
  });

  it('an invalid option value', async () => {
    expectUsageError(
      await leaseproof('explore', '--runs', 'many'),
      'leaseproof: --runs must be an integer from 1 to 1000000; got "many"',
    );
  });

  it('no command at all prints the help on stderr and exits 2', async () => {
    const result = await leaseproof();
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Usage: leaseproof/);
  });

  // One test each: a process apiece, and a loaded runner is slow to start them.
  for (const args of [
    ['--help'],
    ['help'],
    ['help', 'suite'],
    ['suite', '--help'],
    ['--version'],
  ]) {
    it(`${args.join(' ')} still exits 0, on stdout`, async () => {
      const result = await leaseproof(...args);
      expect(result.code).toBe(0);
      expect(result.stdout).not.toBe('');
      expect(result.stderr).toBe('');
    });
  }
});

describe('an unknown queue is refused before anything starts, exit 2, with a did-you-mean', () => {
  const SCENARIO = 'scenarios/pause-past-lease.yaml';
  const INCIDENT = 'scenarios/incidents/gc-pause-late-ack.yaml';
  const commands: [string, string[]][] = [
    ['run', ['run', SCENARIO, '--queue', 'reference', '--queue', 'refrence']],
    ['suite', ['suite', '--queue', 'refrence']],
    ['explore', ['explore', '--queue', 'refrence', '--runs', '1']],
    ['mutants', ['mutants', '--queue', 'refrence']],
    ['replay', ['replay', INCIDENT, '--queue', 'refrence']],
    ['replay --sweep', ['replay', INCIDENT, '--queue', 'refrence', '--sweep', 'lease=20s,30s']],
  ];
  for (const [name, args] of commands) {
    it(name, async () => {
      expectUsageError(
        await leaseproof(...args),
        /^leaseproof: unknown queue "refrence" \(did you mean reference\?\): the built-in queues are reference, /,
      );
    });
  }

  it('a built-in name is suggested for a near miss of it (pg_boss)', async () => {
    expectUsageError(
      await leaseproof('run', SCENARIO, '--queue', 'pg_boss'),
      /^leaseproof: unknown queue "pg_boss" \(did you mean pg-boss\?\)/,
    );
  });

  it('an adapter file that does not exist, with the file beside it that was meant', async () => {
    expectUsageError(
      await leaseproof('run', SCENARIO, '--queue', './examples/tiny-queu.ts'),
      /^leaseproof: queue adapter file \S+\/examples\/tiny-queu\.ts does not exist .*; did you mean \.\/examples\/tiny-queue\.ts\?$/,
    );
  });

  it('a --variant of mutants that does not exist, with a did-you-mean', async () => {
    expectUsageError(
      await leaseproof('mutants', '--variant', 'no-watchdg'),
      /^leaseproof: --variant no-watchdg: no such known-bad variant \(did you mean no-watchdog\?\); the variants are /,
    );
  });
});
