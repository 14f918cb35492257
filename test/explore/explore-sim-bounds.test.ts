// Issue 38 §2: `explore --sim` with an adapter whose statements wait on time inside the database
// finishes — a pg_sleep is simulated, and a statement that never ends is cut at the run's wall
// bound, counted unknown, and the search goes on.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explore } from '../../src/explore/explore.js';
import type { ExploreOptions, ExploreProgress } from '../../src/explore/types.js';

const options = async (more: Partial<ExploreOptions>): Promise<ExploreOptions> => ({
  queue: 'test/fixtures/sleepy-claim-queue.ts',
  runs: 15,
  seed: 5,
  budgetMs: 240_000,
  sim: true,
  // Nothing here should need a real replay.
  confirm: () => Promise.reject(new Error('no failure was expected to confirm')),
  outDir: await mkdtemp(join(tmpdir(), 'leaseproof-explore-sim-bounds-')),
  ...more,
});

describe('explore --sim and statements that wait in the database', () => {
  it('searches an adapter whose claim runs SELECT pg_sleep(0.002) to the end', async () => {
    const result = await explore(await options({}));
    expect(result).toMatchObject({ failed: false, runsDone: 15 });
  }, 300_000);

  it('counts a run its wall bound cut short as unknown, and goes on', async () => {
    let last: ExploreProgress | undefined;
    const result = await explore(
      await options({
        queue: 'test/fixtures/clock-loop-claim-queue.ts',
        runs: 3,
        simBounds: { wallMs: 300 },
        onProgress: (p) => (last = p),
      }),
    );
    expect(result).toMatchObject({ failed: false, runsDone: 3 });
    expect(last?.cutShort).toBe(3);
    expect(last?.last?.valid).toBe('unknown');
    expect(last?.cutShortCause).toMatch(/^simulation bound: 0\.3 s of wall time exceeded/);
  }, 300_000);
});
