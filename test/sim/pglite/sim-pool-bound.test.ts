// Issue 38 §2, on simulation processes: a statement that computes inside PGlite without reading
// the clock would hold its process where no bound of the process's own can run (a claim that
// holds the thread in a synchronous wait stands in for it here: every loop inside PGlite tried
// reads the clock, and is cut in the process). The parent kills the
// process past the run's wall bound (and a grace), answers the run unknown with the cause, and
// a fresh process takes the next run.
import { describe, expect, it } from 'vitest';
import { poolRun } from '../../../src/explore/sim-run.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { SimPool } from '../../../src/sim/pglite/sim-pool.js';
import { SimulationBoundError } from '../../../src/sim/pglite/sim-bounds.js';

describe('simulation processes and the wall bound', () => {
  it('kill a process a statement holds past the bound: that run is unknown, the next runs on a fresh one', async () => {
    const crash = await loadScenario('scenarios/crash-mid-handler.yaml');
    const pool = await SimPool.start(1);
    try {
      // This run's bound is a second; the next one has the default (a loaded machine can take
      // more than a second for an honest run).
      const held = await pool
        .history(crash, 'test/fixtures/thread-holding-claim-queue.ts', { wallMs: 1_000 })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(held).toBeInstanceOf(SimulationBoundError);
      expect(String(held)).toMatch(/simulation bound: .* the process was killed/);
      expect(pool.killed).toBe(1);
      const next = await poolRun(pool)(crash, 'reference');
      expect(next.result.valid).toBe('valid');
    } finally {
      await pool.stop();
    }
  }, 120_000);
});
