import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  isAlive,
  isRecordedProcess,
  listProcessRecords,
  processIdentity,
  reapLeftovers,
  recordProcess,
} from '../../src/env/process-registry.js';

const started: number[] = [];
const sleeper = (): number => {
  const child = spawn('sleep', ['30'], { stdio: 'ignore', detached: true });
  started.push(child.pid!);
  return child.pid!;
};
// A pid whose process has exited: an owner that was SIGKILLed.
const deadPid = (): number => spawnSync('true').pid;

let saved: string | undefined;
beforeEach(async () => {
  saved = process.env.LEASEPROOF_STATE_DIR;
  process.env.LEASEPROOF_STATE_DIR = await mkdtemp(join(tmpdir(), 'leaseproof-registry-'));
});
afterEach(() => {
  for (const pid of started.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  if (saved === undefined) delete process.env.LEASEPROOF_STATE_DIR;
  else process.env.LEASEPROOF_STATE_DIR = saved;
});

describe('the process registry finds its processes by start time, not by command line', () => {
  it('records the start time, and a live process with that pid and start time is ours', async () => {
    const pid = sleeper();
    const record = await recordProcess({
      runId: 'r1',
      kind: 'worker',
      pid,
      ownerPid: process.pid,
      stopSignal: 'SIGTERM',
    });
    expect(record.startedAt).toMatch(/^proc:\d+$/);
    expect(record.startedAt).toBe(processIdentity(pid));
    expect(isRecordedProcess(record)).toBe(true);
    // The start time tells two processes apart: this test's own process started earlier.
    expect(processIdentity(process.pid)).not.toBe(record.startedAt);
  });

  it('reaps an orphan whose start time matches, and never signals a reused pid', async () => {
    const orphan = sleeper();
    const stranger = sleeper();
    await recordProcess({
      runId: 'r2',
      kind: 'worker',
      pid: orphan,
      ownerPid: deadPid(),
      stopSignal: 'SIGTERM',
    });
    // A record of a process that is gone, whose pid now belongs to another process (`stranger`).
    const reused = await recordProcess({
      runId: 'r2',
      kind: 'hog',
      pid: stranger,
      ownerPid: deadPid(),
      stopSignal: 'SIGKILL',
    });
    const { writeFile } = await import('node:fs/promises');
    await writeFile(
      join(process.env.LEASEPROOF_STATE_DIR!, 'processes', `r2-hog-${stranger}.json`),
      JSON.stringify({ ...reused, startedAt: 'proc:1' }),
    );
    const reaped = await reapLeftovers(2_000);
    expect(reaped.map((r) => [r.record.pid, r.outcome]).sort()).toEqual(
      [
        [orphan, 'stopped'],
        [stranger, 'gone'],
      ].sort(),
    );
    expect(isAlive(orphan)).toBe(false);
    expect(isAlive(stranger)).toBe(true);
    expect(await listProcessRecords()).toEqual([]);
  });

  it('leaves the processes of a live owner alone', async () => {
    const pid = sleeper();
    await recordProcess({
      runId: 'r3',
      kind: 'worker',
      pid,
      ownerPid: process.pid,
      stopSignal: 'SIGTERM',
    });
    expect(await reapLeftovers(1_000)).toEqual([]);
    expect(isAlive(pid)).toBe(true);
  });
});
