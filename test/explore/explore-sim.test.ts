// explore --sim for real: the search and its shrinking in simulated time against the queue's own
// SQL on PGlite, the counterexample confirmed on real runs (PostgreSQL, Toxiproxy, worker
// processes); and one seed, one search: the same seed finds the same schedule by the same path.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import { explore } from '../../src/explore/explore.js';
import type { ExploreOptions } from '../../src/explore/types.js';
import { loadScenario } from '../../src/scenario/load-scenario.js';
import { staleAckAfterReclaimBothComplete } from '../checker/fixtures/anomalies.js';
import { renamed, scenario } from '../report/fixtures.js';

// A seed whose search fails within its first few dozen draws on unconditional-ack.
const SEED = 4;

const options = async (more: Partial<ExploreOptions>): Promise<ExploreOptions> => ({
  queue: 'unconditional-ack',
  runs: 300,
  seed: SEED,
  budgetMs: 120_000,
  sim: true,
  outDir: await mkdtemp(join(tmpdir(), 'leaseproof-explore-sim-')),
  ...more,
});

describe('explore --sim', () => {
  it('gives one search for one seed: the same failing draw, shrunk by the same path', async () => {
    // A confirmation that always reproduces, so that only the simulation decides.
    const reproduces = () =>
      Promise.resolve(
        scenario(renamed(staleAckAfterReclaimBothComplete(), 'confirm', 'unconditional-ack')),
      );
    const searches = [];
    for (let i = 0; i < 2; i += 1) {
      const result = await explore(await options({ confirm: reproduces }));
      if (!result.failed) throw new Error(`no failure in ${result.runsDone} simulated runs`);
      searches.push({
        path: result.counterexamplePath,
        minimal: result.minimal,
        runs: result.runsDone,
      });
    }
    expect(searches[1]).toEqual(searches[0]);
  }, 300_000);

  it(
    'finds unconditional-ack in simulation and confirms it on real runs before reporting it',
    { timeout: 400_000, retry: 1 },
    async () => {
      const env = await new EmbeddedEnvironmentProvider().start();
      try {
        const result = await explore(await options({ env }));
        if (!result.failed) throw new Error(`no counterexample in ${result.runsDone} runs`);
        expect(result.foundIn).toBe('simulation');
        expect(result.violated).toContain('no-stale-ack');
        expect(result.reproduced).toBeGreaterThanOrEqual(1);
        const { description } = await loadScenario(result.file);
        expect(description).toContain('found in simulated time on PGlite');
        expect(description).toMatch(/reproduced on [123] of 3 real replays/);
      } finally {
        await env.stop();
      }
    },
  );
});
