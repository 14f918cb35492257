// The search's decisions on a failure, with the run injected (no servers): a failure that no
// confirming replay reproduces is kept as unconfirmed and the search goes on over the very draws
// an unbroken search would have run; one replay that reproduces makes it a counterexample.
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explore } from '../../src/explore/explore.js';
import type { ExploreOptions, ExploreRun, UnconfirmedFailure } from '../../src/explore/types.js';
import type { Scenario } from '../../src/scenario/scenario-types.js';
import { cleanRun, staleAckAfterReclaimBothComplete } from '../checker/fixtures/anomalies.js';
import { renamed, scenario } from '../report/fixtures.js';

const QUEUE = 'fake-queue';
const valid = () => scenario(renamed(cleanRun(), 'explore', QUEUE));
const invalid = () => scenario(renamed(staleAckAfterReclaimBothComplete(), 'explore', QUEUE));
const text = (s: Scenario): string => JSON.stringify(s);

/** Every call of the injected run: the search's own (draws and shrink candidates) and replays. */
interface Calls {
  search: string[];
  replays: number;
}

/**
 * A run that fails the search's draws `failing` selects and, of the confirming replays, those
 * `reproduces` selects (by their index among replays).
 */
function fakeRun(
  calls: Calls,
  failing: (s: string) => boolean,
  reproduces: (replay: number) => boolean = () => false,
): ExploreRun {
  return (s) => {
    if (s.name === 'confirm') {
      calls.replays += 1;
      return Promise.resolve(reproduces(calls.replays - 1) ? invalid() : valid());
    }
    calls.search.push(text(s));
    return Promise.resolve(failing(text(s)) ? invalid() : valid());
  };
}

async function options(overrides: Partial<ExploreOptions>): Promise<ExploreOptions> {
  return {
    queue: QUEUE,
    runs: 6,
    seed: 19,
    budgetMs: 60_000,
    outDir: await mkdtemp(join(tmpdir(), 'leaseproof-explore-unconfirmed-')),
    ...overrides,
  };
}

/** The draws of an unbroken search (every run passes): what any search of these options runs. */
async function unbrokenDraws(overrides: Partial<ExploreOptions> = {}): Promise<string[]> {
  const calls: Calls = { search: [], replays: 0 };
  const result = await explore(await options({ run: fakeRun(calls, () => false), ...overrides }));
  expect(result).toMatchObject({ failed: false, unconfirmed: [] });
  return calls.search;
}

describe('explore: a failure that does not replay', () => {
  it('is kept as unconfirmed, not reported as a counterexample, and the search goes on', async () => {
    const draws = await unbrokenDraws();
    expect(draws).toHaveLength(6);
    const calls: Calls = { search: [], replays: 0 };
    const told: UnconfirmedFailure[] = [];
    const opts = await options({
      run: fakeRun(calls, (s) => s === draws[2]),
      onUnconfirmed: (u) => told.push(u),
    });
    const result = await explore(opts);

    expect(result.failed).toBe(false);
    expect(result.unconfirmed).toHaveLength(1);
    expect(told).toEqual(result.unconfirmed);
    const [u] = result.unconfirmed;
    expect(u!.violated).toContain('no-stale-ack');
    expect(u!.replays).toBe(3);
    expect(u!.counterexamplePath.split(':')[0]).toBe('2');
    // Its files are kept, under a folder that says what they are, away from counterexamples.
    expect(u!.file.startsWith(join(opts.outDir!, 'unconfirmed') + sep)).toBe(true);
    expect(await readFile(u!.file, 'utf8')).toContain('UNCONFIRMED failure');
    expect(await readdir(u!.firstFailureReport)).toEqual(
      expect.arrayContaining(['verdict.json', 'summary.md']),
    );
    expect(await readdir(opts.outDir!)).toEqual(['unconfirmed']);
    // The search went on past the failing draw, over the draws an unbroken search runs.
    expect(calls.search.slice(0, 3)).toEqual(draws.slice(0, 3));
    expect(calls.search.slice(-3)).toEqual(draws.slice(3));
  });

  it('resumes every lane of a parallel search, each draw run once', async () => {
    const draws = await unbrokenDraws({ runs: 8, parallel: 2 });
    expect(new Set(draws).size).toBe(8);
    // The draws run while searching, told from shrink candidates (one may equal its original)
    // by the phase last reported when the run was called.
    let phase = 'search';
    const searched: string[] = [];
    const calls: Calls = { search: [], replays: 0 };
    const failing = fakeRun(calls, (s) => s === draws[2]);
    const result = await explore(
      await options({
        runs: 8,
        parallel: 2,
        run: (s, queue) => {
          if (s.name !== 'confirm' && phase === 'search') searched.push(text(s));
          return failing(s, queue);
        },
        onProgress: (p) => (phase = p.phase),
      }),
    );
    expect(result).toMatchObject({ failed: false, unconfirmed: [expect.anything()] });
    expect(searched.toSorted()).toEqual(draws.toSorted());
  });

  it('is a counterexample when one replay of three reproduces it: flaky, but real', async () => {
    const draws = await unbrokenDraws();
    const calls: Calls = { search: [], replays: 0 };
    const opts = await options({
      run: fakeRun(
        calls,
        (s) => s === draws[1],
        (replay) => replay === 1,
      ),
    });
    const result = await explore(opts);
    if (!result.failed) throw new Error('expected a counterexample');
    expect(result).toMatchObject({ reproduced: 1, replays: 3, unconfirmed: [] });
    expect(result.file.startsWith(join(opts.outDir!, 'unconfirmed'))).toBe(false);
    expect(await readFile(result.file, 'utf8')).toContain('reproduced on 1 of 3 replays');
  });

  it('reports a confirmed counterexample found after an unconfirmed one, with it', async () => {
    const draws = await unbrokenDraws();
    const calls: Calls = { search: [], replays: 0 };
    // Draw 1 fails once and never again; draw 4 fails on every run, replays included.
    let replaysBefore = Infinity;
    const result = await explore(
      await options({
        run: fakeRun(
          calls,
          (s) => {
            if (s === draws[4]) replaysBefore = Math.min(replaysBefore, calls.replays);
            return s === draws[1] || s === draws[4];
          },
          (replay) => replay >= replaysBefore,
        ),
      }),
    );
    if (!result.failed) throw new Error('expected a counterexample');
    expect(result.counterexamplePath.split(':')[0]).toBe('4');
    expect(result.reproduced).toBe(3);
    expect(result.unconfirmed).toHaveLength(1);
    expect(result.unconfirmed[0]!.counterexamplePath.split(':')[0]).toBe('1');
  });
});
