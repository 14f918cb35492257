// Ctrl-C (SIGINT), SIGTERM and SIGKILL of a controller in the middle of its faults — a worker
// SIGSTOPped, another's proxy disabled — against the process table: nothing it started may
// survive (for SIGKILL, past the next command), no worker may stay stopped, and an interrupted
// run's history and report are written and marked incomplete. Ctrl-C is sent both ways: to the
// controller's pid, and to its whole process group, as a terminal sends it.
import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { isAlive, processState, type ProcessRecord } from '../../src/env/process-registry.js';
import { readHistory } from '../../src/history/jsonl.js';
import type { VerdictFile } from '../../src/report/verdict-types.js';
import { descendantsOf, processTable, waitGone, type ProcessInfo } from '../support/processes.js';
import { finished, spawnCli, type SpawnOptions } from '../support/run-node.js';

const SCENARIO = `
name: interrupted-mid-fault
description: Long faults, so that the controller is stopped while they are in force.
seed: 5
lease: { duration: 800ms, heartbeat: 200ms, extendBy: 800ms, poll: 50ms }
workers: 3
jobs:
  count: 6
  handler: { units: 20, unit: { dist: fixed, duration: 100ms }, effectEvery: 1 }
faults:
  - { at: 200ms, pause: { worker: 1, for: 60s } }
  - { at: 200ms, partition: { worker: 2, mode: down, for: 60s } }
check: [no-stale-ack, single-completion, no-lost-job]
`;

/** A fresh state folder, reports folder and scenario file: what separate checkouts would have. */
async function setup() {
  const dir = await mkdtemp(join(tmpdir(), 'leaseproof-interrupt-'));
  const file = join(dir, 'interrupted-mid-fault.yaml');
  await writeFile(file, SCENARIO);
  const env = {
    LEASEPROOF_STATE_DIR: join(dir, 'state'),
    DATABASE_URL: '',
    TOXIPROXY_URL: '',
    LEASEPROOF_ENV: '',
  };
  return { dir, file, env, out: join(dir, 'reports'), records: join(dir, 'state', 'processes') };
}

/** The process records in a state folder's `processes` folder. */
async function recordsIn(folder: string): Promise<ProcessRecord[]> {
  const names = await readdir(folder).catch(() => [] as string[]);
  return Promise.all(
    names.map(async (n) => JSON.parse(await readFile(join(folder, n), 'utf8')) as ProcessRecord),
  );
}

/** Starts `run`, waits until both faults are in force, returns the child and what it started. */
async function midFault(
  file: string,
  out: string,
  env: NodeJS.ProcessEnv,
  options: SpawnOptions = {},
) {
  const child = spawnCli(['run', file, '--queue', 'reference', '--out', out], env, options);
  const done = finished(child);
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`faults never started:\n${seen}`)), 90_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (/faults: partition@w2 pause@w1/.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  // A SIGSTOP takes effect when its target next runs: on a loaded machine the paused worker
  // can still read `R` for a moment after the controller reported the pause.
  const deadline = Date.now() + 5_000;
  let started = descendantsOf(child.pid!);
  while (!workersOf(started).some((w) => processState(w.pid) === 'T') && Date.now() < deadline) {
    await sleep(50);
    started = descendantsOf(child.pid!);
  }
  return { child, done, started };
}

const workersOf = (started: ProcessInfo[]): ProcessInfo[] =>
  started.filter((p) => p.command.includes('worker-main'));

/** The report folder the run wrote, and its verdict. */
async function writtenReport(out: string): Promise<{ dir: string; verdict: VerdictFile }> {
  const runs = (await readdir(out)).filter((n) => /^\d{8}t\d{6}_/.test(n));
  expect(runs).toHaveLength(1);
  const dir = join(out, runs[0]!);
  const verdict = JSON.parse(await readFile(join(dir, 'verdict.json'), 'utf8')) as VerdictFile;
  return { dir, verdict };
}

/**
 * Signals a controller mid-fault and checks that it stopped everything and wrote a cut report.
 * `to: 'group'` starts it as a process group leader and signals the whole group, as a terminal
 * does on Ctrl-C; what it started must be outside that group, so only it hears the signal.
 */
async function interruptWith(
  signal: 'SIGINT' | 'SIGTERM',
  code: number,
  to: 'pid' | 'group' = 'pid',
): Promise<void> {
  const { file, env, out, records } = await setup();
  const { child, done, started } = await midFault(file, out, env, { group: to === 'group' });
  const workers = workersOf(started);
  expect(workers).toHaveLength(3);
  // The pause is real: one worker is SIGSTOPped right now.
  expect(workers.map((w) => processState(w.pid))).toContain('T');
  expect(started.some((p) => /postgres -D/.test(p.command))).toBe(true);
  expect(started.some((p) => /toxiproxy-server/.test(p.command))).toBe(true);
  const recorded = await recordsIn(records);
  expect(recorded.map((r) => r.kind).sort()).toEqual([
    'postgres',
    'toxiproxy',
    'worker',
    'worker',
    'worker',
  ]);

  if (to === 'group') {
    // tsx's esbuild service is in the group (this test runs the CLI from source): tsx's, not
    // leaseproof's, and done with its work once the run is under way.
    const inGroup = started.filter(
      (p) => p.pgid === child.pid && !/esbuild --service/.test(p.command),
    );
    expect(inGroup).toEqual([]);
    process.kill(-child.pid!, signal);
  } else {
    child.kill(signal);
  }
  const result = await done;
  expect(result.code).toBe(code);
  expect(result.stderr).toContain(`interrupted by ${signal}: report written to`);
  await waitGone(started.map((p) => p.pid));
  // Stopped by the controller itself, not left for the next command to reap: no record, no
  // server on the run's data directory, nothing stopped.
  expect(await recordsIn(records)).toEqual([]);
  const dataDir = recorded.find((r) => r.kind === 'postgres')!.removeDir!;
  expect(existsSync(dataDir)).toBe(false);
  const left = processTable().filter(
    (p) => p.state !== 'Z' && (p.command.includes(dataDir) || started.some((s) => s.pid === p.pid)),
  );
  expect(left).toEqual([]);

  const { dir, verdict } = await writtenReport(out);
  expect(verdict.interrupted).toBe(signal);
  expect(verdict.scenarios).toHaveLength(1);
  expect(verdict.scenarios[0]).toMatchObject({ name: 'interrupted-mid-fault', complete: false });
  // The report's history is gzip; readHistory reads a file cut short as the writer left it.
  const history = (await readHistory(join(dir, verdict.scenarios[0]!.files.history))).events;
  // What happened before the signal is there: claims, units, the faults' starts; no end.
  expect(history.some((e) => e.type === 'nemesis')).toBe(true);
  expect(history.some((e) => e.type === 'audit')).toBe(true);
  expect(history.some((e) => e.type === 'end')).toBe(false);
  const summary = await readFile(join(dir, 'summary.md'), 'utf8');
  expect(summary).toContain(`**Interrupted by ${signal}**`);
}

describe('an interrupted run', () => {
  it('on SIGINT mid-fault stops everything, continues the paused worker, writes a cut history, exits 130', async () => {
    await interruptWith('SIGINT', 130);
  }, 150_000);

  it('on Ctrl-C from a terminal (SIGINT to its whole process group) does the same: what it started is outside the group', async () => {
    await interruptWith('SIGINT', 130, 'group');
  }, 150_000);

  it('on SIGTERM does the same and exits 143', async () => {
    await interruptWith('SIGTERM', 143);
  }, 150_000);

  it('after a SIGKILL mid-fault, the next command stops every leftover, the stopped worker too', async () => {
    const { file, env, out } = await setup();
    const { child, done, started } = await midFault(file, out, env);
    const paused = workersOf(started).filter((w) => processState(w.pid) === 'T');
    expect(paused).toHaveLength(1);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    // Not `done`: that waits for the output pipes to close, and the orphans still hold them.
    await exited;
    void done;
    // The stopped worker cannot even notice its controller is gone; the servers live on.
    expect(isAlive(paused[0]!.pid)).toBe(true);
    const next = await finished(spawnCli(['env', 'status'], env));
    expect(next.stderr).toMatch(/stopped leftover worker/);
    expect(next.stderr).toMatch(/stopped leftover postgres/);
    await waitGone(started.map((p) => p.pid));
  }, 150_000);
});
