// `leaseproof simulate`: scenarios in simulated time on PGlite, one line per scenario × queue,
// the exit code as `run`'s (0 valid, 1 invalid, 2 unknown or not simulated).
import { describe, expect, it } from 'vitest';
import { finished, spawnCli } from '../support/run-node.js';

describe('leaseproof simulate', () => {
  it('judges a scenario in simulated time: the reference valid, a known-bad queue invalid with its evidence', async () => {
    const result = await finished(
      spawnCli([
        'simulate',
        'pause-past-lease',
        '--queue',
        'reference',
        '--queue',
        'unconditional-ack',
      ]),
    );
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toMatch(
      /^pause-past-lease × reference: valid in simulation \(seed 12, \d+ ms\)$/m,
    );
    expect(result.stdout).toMatch(/^pause-past-lease × unconditional-ack: invalid in simulation/m);
    expect(result.stdout).toMatch(/^ {2}I1 no-stale-ack: ack by w1 \(claim 1\) committed at/m);
    expect(result.stderr).toMatch(/confirm with `leaseproof run`/);
  }, 120_000);

  it('says which scenario it cannot model and why, and exits 2', async () => {
    const result = await finished(spawnCli(['simulate', 'database-restart']));
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(
      /database-restart × reference: not simulated \(database-restart: a database restart is not modelled/,
    );
  }, 120_000);

  it('simulates an adapter whose claim sleeps in the database (SELECT pg_sleep): it returns, valid', async () => {
    const result = await finished(
      spawnCli([
        'simulate',
        'pause-past-lease',
        '--queue',
        './test/fixtures/sleepy-claim-queue.ts',
      ]),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^pause-past-lease × sleepy-claim: valid in simulation/m);
  }, 120_000);

  it('says a run its bound cut short is unknown, with the cause, and exits 2', async () => {
    const result = await finished(spawnCli(['simulate', 'pause-past-lease', '--step-bound', '20']));
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toMatch(
      /^pause-past-lease × reference: unknown in simulation \(simulation bound: 20 steps exceeded at simulated \+/m,
    );
  }, 120_000);
});
