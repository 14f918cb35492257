import { afterAll, beforeAll, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { measureClockOffset } from '../../src/history/clock-offset.js';
import { withRunClient } from '../../src/pool/queue-database.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

it('measures a small offset, with a non-zero uncertainty, against a server on this host', async () => {
  const database = await env.createDatabase();
  try {
    const offsets = await withRunClient(database, async (client) => {
      const all = [];
      for (let i = 0; i < 5; i += 1) all.push(await measureClockOffset(client));
      return all;
    });
    console.log(`clock offsets: ${JSON.stringify(offsets)}`);
    for (const { offsetMs, uncertaintyMs } of offsets) {
      expect(uncertaintyMs).toBeGreaterThan(0);
      expect(uncertaintyMs).toBeLessThan(5);
      // One clock on one host: the offset is zero up to the measurement's own uncertainty (and
      // the server's microsecond rounding).
      expect(Math.abs(offsetMs)).toBeLessThanOrEqual(uncertaintyMs + 0.01);
    }
  } finally {
    await database.drop();
  }
});
