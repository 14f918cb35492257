import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { runInLanes } from '../../src/scale-out/lanes.js';

/** Work that records how many items ran at once and which ran beside an exclusive one. */
function tracker() {
  let running = 0;
  let peak = 0;
  const overlaps: string[] = [];
  const live = new Set<string>();
  const started: string[] = [];
  return {
    get peak() {
      return peak;
    },
    overlaps,
    started,
    async run(name: string, ms: number, exclusive: boolean): Promise<string> {
      running += 1;
      peak = Math.max(peak, running);
      for (const other of live) {
        if (exclusive || other.startsWith('x')) overlaps.push(`${name}+${other}`);
      }
      live.add(name);
      started.push(name);
      await sleep(ms);
      live.delete(name);
      running -= 1;
      return name.toUpperCase();
    },
  };
}

describe('runInLanes', () => {
  it('runs at most `lanes` at once and returns results in item order, not finish order', async () => {
    const t = tracker();
    const items = ['a', 'b', 'c', 'd', 'e'];
    const ms = [60, 10, 40, 5, 20];
    const { results, started } = await runInLanes(items, { lanes: 2 }, (item, i) =>
      t.run(item, ms[i]!, false),
    );
    expect(results).toEqual(['A', 'B', 'C', 'D', 'E']);
    expect(started).toBe(5);
    expect(t.peak).toBe(2);
  });

  it('uses every lane it is given (the point of --parallel)', async () => {
    const t = tracker();
    await runInLanes(['a', 'b', 'c', 'd'], { lanes: 4 }, (item) => t.run(item, 30, false));
    expect(t.peak).toBe(4);
  });

  it('runs an exclusive item alone: nothing beside it, before or after', async () => {
    const t = tracker();
    const items = ['a', 'b', 'xdb', 'c', 'd'];
    await runInLanes(items, { lanes: 3, exclusive: (item) => item.startsWith('x') }, (item) =>
      t.run(item, 20, item.startsWith('x')),
    );
    expect(t.overlaps).toEqual([]);
    // The others share the lanes before it: the lanes do not idle behind it in mid-list.
    expect(t.peak).toBe(3);
    expect(t.started.at(-1)).toBe('xdb');
  });

  it('stops on the first error: aborts the others, waits for them, then throws it', async () => {
    const settled: string[] = [];
    const run = runInLanes(
      ['ok', 'boom', 'slow', 'never'],
      { lanes: 3 },
      async (item, _i, signal) => {
        if (item === 'boom') {
          await sleep(10);
          throw new Error('boom failed');
        }
        if (item === 'slow') {
          await sleep(5_000, undefined, { signal }).catch(() => undefined);
          settled.push(`slow aborted=${signal.aborted}`);
          return item;
        }
        await sleep(30);
        settled.push(item);
        return item;
      },
    );
    await expect(run).rejects.toThrow('boom failed');
    // The slow one was told and had settled before the error came out; "never" never started.
    expect(settled.sort()).toEqual(['ok', 'slow aborted=true']);
  });

  it('starts nothing more after the caller aborts, and keeps what finished', async () => {
    const abort = new AbortController();
    const { results, started } = await runInLanes(
      ['a', 'b', 'c'],
      { lanes: 1, signal: abort.signal },
      async (item) => {
        if (item === 'a') abort.abort();
        await sleep(1);
        return item;
      },
    );
    expect(started).toBe(1);
    expect(results).toEqual(['a', undefined, undefined]);
  });

  it('refuses a lane count that is not a whole number ≥ 1', async () => {
    await expect(runInLanes([1], { lanes: 0 }, () => Promise.resolve(1))).rejects.toThrow(
      /lanes must be a whole number/,
    );
  });
});
