import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { MAINTENANCE_APP, MaintenanceLoop } from '../../src/pool/maintenance-loop.js';
import type { QueueMaintenance } from '../../src/queue/types.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

const LEASE = { durationMs: 500, heartbeatMs: 100, extendByMs: 500, pollMs: 20 };

describe('MaintenanceLoop (a library’s background sweep, run by the harness)', () => {
  it('runs a pass every interval on its own connection, outlives a failing pass, and stops for good', async () => {
    const database = await env.createDatabase();
    const reader = new pg.Client({ connectionString: database.url });
    await reader.connect();
    try {
      await reader.query(
        'CREATE TABLE passes (n serial, app text, at timestamptz DEFAULT clock_timestamp())',
      );
      let calls = 0;
      const maintenance: QueueMaintenance = {
        description: 'records a pass; the second one fails',
        intervalMs: (lease) => lease.durationMs / 10,
        async run(db) {
          calls += 1;
          if (calls === 2) throw new Error('the database is restarting');
          await db.query("INSERT INTO passes (app) VALUES (current_setting('application_name'))");
        },
      };
      const loop = MaintenanceLoop.start(database, maintenance, { lease: LEASE });
      expect(loop.intervalMs).toBe(50);
      await sleep(600);
      await Promise.all([loop.stop(), loop.stop()]);
      const stats = loop.stats();
      expect(stats.failures).toBe(1);
      expect(stats.lastError).toBe('the database is restarting');
      expect(stats.passes).toBeGreaterThanOrEqual(4);
      const { rows } = await reader.query<{ app: string }>('SELECT app FROM passes');
      expect(rows.length).toBe(stats.passes - 1);
      expect(new Set(rows.map((r) => r.app))).toEqual(new Set([MAINTENANCE_APP]));
      await sleep(200);
      expect(loop.stats().passes).toBe(stats.passes);
    } finally {
      await reader.end();
      await database.drop();
    }
  });

  it('refuses an interval that is no interval', async () => {
    const database = await env.createDatabase();
    try {
      const bad: QueueMaintenance = {
        description: 'never',
        intervalMs: () => 0,
        run: async () => {},
      };
      expect(() => MaintenanceLoop.start(database, bad, { lease: LEASE })).toThrow(
        /queue maintenance "never": intervalMs\(\) gave 0, expected a positive number of ms/,
      );
    } finally {
      await database.drop();
    }
  });
});
