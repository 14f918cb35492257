// explore --sim --parallel: simulated runs on processes of their own. A run on a child is the
// in-process run, byte for byte (each starts from a reset database and a seeded clock); a
// simulation limit comes back as itself; the pool stops its processes, twice as safely as once;
// and a search on two lanes finds what one lane finds.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtInQueue } from '../../../src/libraries/registry.js';
import { explore } from '../../../src/explore/explore.js';
import { poolRun, simRun } from '../../../src/explore/sim-run.js';
import { SimPool } from '../../../src/sim/pglite/sim-pool.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { SimDatabase, SimulationLimitError } from '../../../src/sim/pglite/sim-database.js';
import { staleAckAfterReclaimBothComplete } from '../../checker/fixtures/anomalies.js';
import { renamed, scenario } from '../../report/fixtures.js';

describe('simulation processes (SimPool)', () => {
  it('runs a scenario as the in-process simulation does, byte for byte, and stops its processes', async () => {
    const pause = await loadScenario('scenarios/pause-past-lease.yaml');
    const db = await SimDatabase.start();
    let inProcess: string;
    try {
      inProcess = JSON.stringify(await simRun(db, builtInQueue('reference')!)(pause, 'reference'));
    } finally {
      await db.stop();
    }
    const pool = await SimPool.start(2);
    try {
      // Two at once: one on each child.
      const [a, b] = await Promise.all([
        poolRun(pool)(pause, 'reference'),
        poolRun(pool)(pause, 'reference'),
      ]);
      expect(JSON.stringify(a)).toBe(inProcess);
      expect(JSON.stringify(b)).toBe(inProcess);
      expect(a.result.valid).toBe('valid');
    } finally {
      await pool.stop();
      await pool.stop();
    }
    await expect(pool.history(pause, 'reference')).rejects.toThrow(/stopped/);
  }, 180_000);

  it('brings a simulation limit back as itself: a scenario with a database restart', async () => {
    const restart = await loadScenario('scenarios/database-restart.yaml');
    const pool = await SimPool.start(1);
    try {
      const error = await pool.history(restart, 'reference').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SimulationLimitError);
      expect(String(error)).toMatch(/a database restart is not modelled/);
    } finally {
      await pool.stop();
    }
  }, 180_000);

  it('a search on two lanes finds unconditional-ack in simulation', async () => {
    const reproduces = () =>
      Promise.resolve(
        scenario(renamed(staleAckAfterReclaimBothComplete(), 'confirm', 'unconditional-ack')),
      );
    const result = await explore({
      queue: 'unconditional-ack',
      runs: 300,
      seed: 4,
      budgetMs: 120_000,
      sim: true,
      parallel: 2,
      confirm: reproduces,
      outDir: await mkdtemp(join(tmpdir(), 'leaseproof-sim-pool-')),
    });
    if (!result.failed) throw new Error(`no failure in ${result.runsDone} simulated runs`);
    expect(result.foundIn).toBe('simulation');
    expect(result.violated).toContain('no-stale-ack');
  }, 300_000);
});
