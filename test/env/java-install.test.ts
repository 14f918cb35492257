import { spawnSync } from 'node:child_process';
import { cp, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLibfaketime } from '../../src/libraries/program/program-clock.js';
import { ensureJavaProgram, JAVA_CLIENT_DIR, javaCommand } from '../../src/env/java-install.js';
import { haveJava, javaSkipReason } from '../support/java.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'leaseproof-java-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const monotonicMs = () => Number(process.hrtime.bigint()) / 1e6;

interface ClockStep {
  offset: string;
  instantMs: number;
  currentTimeMillis: number;
  nanoTimeMs: number;
  waitMs: number;
  parkMs: number;
}

describe.skipIf(!haveJava)(`the Java client and its build${javaSkipReason}`, () => {
  it('passes its own tests (clients/java, mvn test)', async () => {
    // In a copy: Maven writes target/ beside the sources.
    const source = join(dir, 'client');
    await cp(JAVA_CLIENT_DIR, source, {
      recursive: true,
      filter: (from) => !relative(JAVA_CLIENT_DIR, from).startsWith('target'),
    });
    const run = spawnSync(process.env.LEASEPROOF_MVN ?? 'mvn', ['-B', 'test'], {
      cwd: source,
      encoding: 'utf8',
    });
    expect(run.stdout).toMatch(/Tests run: [1-9]\d*, Failures: 0, Errors: 0, Skipped: 0$/m);
    expect(run.status, run.stdout.slice(-4000) + run.stderr).toBe(0);
  }, 600_000);

  it("reads CLOCK_MONOTONIC through System.nanoTime: the JVM's reading falls between two of Node's", () => {
    const before = monotonicMs();
    const run = spawnSync(
      javaCommand(),
      ['test/fixtures/java/ClockProbe.java', join(dir, 'unused')],
      {
        encoding: 'utf8',
      },
    );
    const after = monotonicMs();
    expect(run.status, run.stderr).toBe(0);
    const [first] = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ClockStep);
    expect(first!.nanoTimeMs).toBeGreaterThan(before);
    expect(first!.nanoTimeMs).toBeLessThan(after);
  }, 120_000);

  it.skipIf(findLibfaketime() === undefined)(
    "libfaketime moves the JVM's wall clock live, not System.nanoTime, and leaves its timed waits whole (FAKETIME_FORCE_MONOTONIC_FIX=0)",
    () => {
      const offsetFile = join(dir, 'offset');
      const run = spawnSync(javaCommand(), ['test/fixtures/java/ClockProbe.java', offsetFile], {
        encoding: 'utf8',
        env: {
          ...process.env,
          LD_PRELOAD: findLibfaketime()!,
          FAKETIME_TIMESTAMP_FILE: offsetFile,
          FAKETIME_NO_CACHE: '1',
          FAKETIME_DONT_FAKE_MONOTONIC: '1',
          FAKETIME_FORCE_MONOTONIC_FIX: '0',
        },
      });
      expect(run.status, run.stderr).toBe(0);
      const steps = run.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as ClockStep);
      expect(steps.map((s) => s.offset)).toEqual(['+0.0000', '+3600.0000', '+0.0000']);
      const [before, skewed, back] = steps as [ClockStep, ClockStep, ClockStep];
      // Wall clock minus monotonic clock: jumps by the hour, then back, on both wall readings.
      const lead = (s: ClockStep, wall: number) => wall - s.nanoTimeMs;
      for (const wall of ['instantMs', 'currentTimeMillis'] as const) {
        expect(lead(skewed, skewed[wall]) - lead(before, before[wall])).toBeCloseTo(3_600_000, -2);
        expect(Math.abs(lead(back, back[wall]) - lead(before, before[wall]))).toBeLessThan(50);
      }
      // The monotonic clock went on as real time did (the steps are ~200 ms apart).
      expect(skewed.nanoTimeMs - before.nanoTimeMs).toBeGreaterThan(150);
      expect(skewed.nanoTimeMs - before.nanoTimeMs).toBeLessThan(5_000);
      // Timed waits last their time (with the fix on, libfaketime makes them return at once).
      for (const step of steps) {
        expect(step.waitMs).toBeGreaterThanOrEqual(99);
        expect(step.parkMs).toBeGreaterThanOrEqual(99);
      }
    },
    120_000,
  );

  it('builds the jar once and finds it again by the hash of its sources', async () => {
    const first = await ensureJavaProgram('leaseproof-java');
    const built = (await stat(first)).mtimeMs;
    expect(await ensureJavaProgram('leaseproof-java')).toBe(first);
    expect((await stat(first)).mtimeMs).toBe(built);
    const run = spawnSync(javaCommand(), ['-jar', first, '--print-sql'], { encoding: 'utf8' });
    const sql = JSON.parse(run.stdout) as Record<string, string>;
    expect(sql).toMatchObject({ version: '16.12.0', taskName: 'leaseproof' });
    expect(sql.install).toMatch(/create table scheduled_tasks/);
  }, 600_000);

  it('says what to install when Maven or Java is missing', async () => {
    // A project root with no jar built: Maven would be needed.
    await expect(
      ensureJavaProgram('leaseproof-java', { projectRoot: dir, mvn: join(dir, 'no-mvn') }),
    ).rejects.toThrow(/built with Maven, and ".*no-mvn" could not be run .*apt-get install maven/);
    await expect(
      ensureJavaProgram('leaseproof-java', { projectRoot: dir, java: join(dir, 'no-java') }),
    ).rejects.toThrow(/needs Java 17 or later, and ".*no-java" could not be run/);
  });
});
