import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import { EnvironmentError } from '../../src/errors.js';
import {
  isAlive,
  listProcessRecords,
  reapLeftovers,
  type ProcessRecord,
} from '../../src/env/process-registry.js';
import { descendantsOf, waitGone } from '../support/processes.js';
import { finished, firstJsonLine, spawnTs } from '../support/run-node.js';

const serversOfThisProcess = (): string[] =>
  descendantsOf(process.pid)
    .filter((p) => /postgres|toxiproxy/.test(p.command))
    .map((p) => `${p.pid} ${p.command}`);

describe('the embedded environment lifecycle', () => {
  it('stops both servers and deletes the data directory; stop is idempotent', async () => {
    const env = await new EmbeddedEnvironmentProvider().start();
    const records = (await listProcessRecords()).filter((r) => r.runId === env.runId);
    expect(records.map((r) => r.kind).sort()).toEqual(['postgres', 'toxiproxy']);
    const pids = records.map((r) => r.pid);
    expect(pids.every(isAlive)).toBe(true);
    const dataDir = records.find((r) => r.kind === 'postgres')?.removeDir ?? '';
    expect(existsSync(dataDir)).toBe(true);

    await env.stop();
    await env.stop();
    await Promise.all([env.stop(), env.stop()]);

    expect(pids.filter(isAlive)).toEqual([]);
    expect(existsSync(dataDir)).toBe(false);
    expect((await listProcessRecords()).filter((r) => r.runId === env.runId)).toEqual([]);
    await expect(env.createProxy('late')).rejects.toThrow(/is stopped/);
  });

  it('is disposed by `await using`', async () => {
    let pids: number[] = [];
    {
      await using env = await new EmbeddedEnvironmentProvider().start();
      pids = (await listProcessRecords()).filter((r) => r.runId === env.runId).map((r) => r.pid);
      expect(pids).toHaveLength(2);
    }
    expect(pids.filter(isAlive)).toEqual([]);
  });

  it('leaves nothing running when start fails half-way (PostgreSQL refuses its settings)', async () => {
    const before = serversOfThisProcess();
    const provider = new EmbeddedEnvironmentProvider({
      runId: 'failedstart',
      postgresSettings: { max_connections: 'banana' },
    });
    const error: unknown = await provider.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EnvironmentError);
    expect(String((error as Error).message)).toMatch(
      /embedded PostgreSQL start failed[\s\S]*max_connections/,
    );
    // toxiproxy-server was started first; it must be gone too.
    expect(serversOfThisProcess()).toEqual(before);
    expect((await listProcessRecords()).filter((r) => r.runId === 'failedstart')).toEqual([]);
  });
});

describe('no orphan server after a test that throws mid-run', () => {
  type Report = { runId: string; records: ProcessRecord[] };

  it('an exception inside `await using` stops both servers before the process exits', async () => {
    const child = spawnTs('test/fixtures/crash-mid-run.ts', ['dispose']);
    const [report, end] = await Promise.all([firstJsonLine<Report>(child), finished(child)]);
    expect(end.code).not.toBe(0);
    expect(end.stderr).toContain('boom: a test failed mid-run');
    expect(report.records).toHaveLength(2);
    await waitGone(report.records.map((r) => r.pid));
    for (const record of report.records) {
      if (record.removeDir) expect(existsSync(record.removeDir)).toBe(false);
    }
  });

  it('an uncaught exception with the environment never stopped still kills both servers, and the next command deletes the data directory', async () => {
    const child = spawnTs('test/fixtures/crash-mid-run.ts', ['uncaught']);
    const [report, end] = await Promise.all([firstJsonLine<Report>(child), finished(child)]);
    expect(end.code).not.toBe(0);
    expect(end.stderr).toContain('boom: uncaught');
    await waitGone(report.records.map((r) => r.pid));
    const dataDir = report.records.find((r) => r.kind === 'postgres')?.removeDir ?? '';
    // Killed at exit (the guard), so the record and the data directory are still there…
    expect(existsSync(dataDir)).toBe(true);
    // …until the next leaseproof command reaps them.
    const reaped = await reapLeftovers();
    expect(reaped.filter((r) => r.record.runId === report.runId).map((r) => r.outcome)).toEqual([
      'gone',
      'gone',
    ]);
    expect(existsSync(dataDir)).toBe(false);
  });
});
