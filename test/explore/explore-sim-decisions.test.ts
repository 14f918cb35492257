// explore --sim's decisions, with the simulated run and the real confirming run injected (no
// servers): the search draws only what the simulation models, a failure found there is replayed
// on the confirming (real) run and only then reported, and one no real replay repeats is kept
// as unconfirmed, saying where it was found.
import { mkdtemp } from 'node:fs/promises';
import { loadScenario } from '../../src/scenario/load-scenario.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explore } from '../../src/explore/explore.js';
import type { ExploreOptions, ExploreRun } from '../../src/explore/types.js';
import type { Scenario } from '../../src/scenario/scenario-types.js';
import { cleanRun, staleAckAfterReclaimBothComplete } from '../checker/fixtures/anomalies.js';
import { renamed, scenario } from '../report/fixtures.js';

const QUEUE = 'fake-queue';
const valid = () => scenario(renamed(cleanRun(), 'explore', QUEUE));
const invalid = () => scenario(renamed(staleAckAfterReclaimBothComplete(), 'explore', QUEUE));

async function options(overrides: Partial<ExploreOptions>): Promise<ExploreOptions> {
  return {
    queue: QUEUE,
    runs: 40,
    seed: 7,
    budgetMs: 60_000,
    sim: true,
    outDir: await mkdtemp(join(tmpdir(), 'leaseproof-explore-sim-')),
    ...overrides,
  };
}

/** A run that records what it was given and fails the draws `failing` selects. */
function recording(seen: Scenario[], failing: (s: Scenario) => boolean = () => false): ExploreRun {
  return (s) => {
    seen.push(s);
    return Promise.resolve(failing(s) ? invalid() : valid());
  };
}

describe('explore --sim', () => {
  it('draws only the faults the simulation models, and handlers of awaited units', async () => {
    const drawn: Scenario[] = [];
    const result = await explore(await options({ run: recording(drawn), confirm: recording([]) }));
    expect(result).toMatchObject({ failed: false, runsDone: 40 });
    const kinds = new Set(drawn.flatMap((s) => s.faults.map((f) => f.kind)));
    expect([...kinds].sort()).toEqual(['clock', 'crash', 'latency', 'partition', 'pause']);
    // Not one blocking unit: the simulation would run it as a wait, the real replay would not.
    expect(drawn.every((s) => JSON.stringify(s).includes('"sync":true') === false)).toBe(true);
    // The same options without --sim draw the whole vocabulary.
    const real: Scenario[] = [];
    await explore(await options({ sim: false, run: recording(real) }));
    const realKinds = new Set(real.flatMap((s) => s.faults.map((f) => f.kind)));
    expect([...realKinds].sort()).toEqual([...kinds, 'stall'].sort());
  });

  it('replays a simulated failure on the confirming runs only, and says where it was found', async () => {
    const simulated: Scenario[] = [];
    const confirming: Scenario[] = [];
    let draw = 0;
    const result = await explore(
      await options({
        // The third draw fails in simulation, and so does every shrink candidate with a pause.
        run: recording(simulated, (s) => {
          draw += 1;
          return draw === 3 || (draw > 3 && s.faults.some((f) => f.kind === 'pause'));
        }),
        confirm: recording(confirming, () => true),
      }),
    );
    if (!result.failed) throw new Error('expected a counterexample');
    expect(result.foundIn).toBe('simulation');
    expect(result.reproduced).toBe(3);
    // Every confirming replay went to the confirming run; none to the simulation.
    expect(confirming.length).toBe(result.replays);
    expect(confirming.every((s) => s.name === 'confirm')).toBe(true);
    expect(simulated.some((s) => s.name === 'confirm')).toBe(false);
    const { description } = await loadScenario(result.file);
    expect(description).toContain('found in simulated time on PGlite');
    expect(description).toContain('reproduced on 3 of 3 real replays');
  });

  it('keeps a simulated failure no real replay repeats as unconfirmed, and searches on', async () => {
    let draw = 0;
    const result = await explore(
      await options({
        runs: 10,
        run: recording([], () => (draw += 1) === 2),
        confirm: recording([], () => false),
      }),
    );
    expect(result.failed).toBe(false);
    expect(result.unconfirmed).toHaveLength(1);
    expect(result.unconfirmed[0]!.foundIn).toBe('simulation');
    expect((await loadScenario(result.unconfirmed[0]!.file)).description).toContain(
      'it reproduced on none of 3 real replays',
    );
    expect(result.runsDone).toBeGreaterThanOrEqual(10);
  });

  it('searches on lanes side by side, each drawing its own share', async () => {
    const drawn: Scenario[] = [];
    const result = await explore(await options({ parallel: 2, run: recording(drawn) }));
    expect(result).toMatchObject({ failed: false, runsDone: 40 });
    // Two lanes, two seeds: the draws are not one stream run twice.
    expect(new Set(drawn.map((s) => JSON.stringify(s))).size).toBeGreaterThan(20);
  });

  it('refuses a queue that runs its own worker loop before any server starts', async () => {
    await expect(explore(await options({ queue: 'pg-boss-native' }))).rejects.toThrow(
      /own worker loop.*explore it without --sim/,
    );
  });
});
