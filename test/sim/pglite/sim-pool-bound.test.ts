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

describe('simulation processes and the wall bound', () => {
  it('kill a process a statement holds past the bound: that run is unknown, the next runs on a fresh one', async () => {
    const crash = await loadScenario('scenarios/crash-mid-handler.yaml');
    const pool = await SimPool.start(1, { wallMs: 1_000 });
    try {
      const run = poolRun(pool);
      const held = await run(crash, 'test/fixtures/thread-holding-claim-queue.ts');
      expect(held.result.valid).toBe('unknown');
      expect(held.cutShort).toMatch(/^simulation bound: .* the process was killed/);
      expect(pool.killed).toBe(1);
      const next = await run(crash, 'reference');
      expect(next.result.valid).toBe('valid');
    } finally {
      await pool.stop();
    }
  }, 120_000);
});
