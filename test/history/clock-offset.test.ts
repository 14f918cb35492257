import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { measureClockOffset } from '../../src/history/clock-offset.js';
import type { SqlClient } from '../../src/queue/types.js';

/** A database on this host's clock whose first `slow` answers each take `delayMs`. */
function clientSlowAtFirst(slow: number, delayMs: number): SqlClient & { asked: number } {
  const client = {
    asked: 0,
    async query<R>(): Promise<{ rows: R[]; rowCount: number }> {
      client.asked += 1;
      if (client.asked <= slow) await sleep(delayMs);
      return { rows: [{ t: Date.now() } as R], rowCount: 1 };
    },
  };
  return client;
}

describe('measureClockOffset', () => {
  it('goes on sampling past the first seven when all of them were slow, until one is quick', async () => {
    const client = clientSlowAtFirst(9, 40);
    const offset = await measureClockOffset(client);
    expect(client.asked).toBeGreaterThan(9);
    expect(offset.uncertaintyMs).toBeLessThan(20);
  });

  it('stops at seven when the answers are quick, and at the ceiling when none is', async () => {
    const quick = clientSlowAtFirst(0, 0);
    await measureClockOffset(quick, 7, 60, 50);
    expect(quick.asked).toBe(7);
    const slow = clientSlowAtFirst(1_000, 5);
    const offset = await measureClockOffset(slow, 7, 12);
    expect(slow.asked).toBe(12);
    expect(offset.uncertaintyMs).toBeGreaterThan(2);
  });
});
