import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { DatabaseProxy, RunDatabase, StartedEnvironment } from '../../src/env/types.js';
import { connect, queryOnce, within } from '../support/pg.js';

// One embedded environment for the proxy behaviours: real PostgreSQL, real toxiproxy-server.
let env: StartedEnvironment;
let database: RunDatabase;
let proxy: DatabaseProxy;

beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
  database = await env.createDatabase();
  proxy = await env.createProxy('worker-1');
});

afterAll(async () => {
  await env?.stop();
});

describe('a Toxiproxy proxy in front of the embedded PostgreSQL', () => {
  it('carries queries to the run database', async () => {
    const result = await queryOnce(proxy.urlFor(database), 'SELECT current_database() AS db');
    expect(result.rows[0]).toEqual({ db: database.name });
    expect(proxy.port).not.toBe(new URL(env.adminUrl).port);
  });

  it('blackholes a query under a timeout toxic (timeout 0) while a direct connection works, and recovers when it is removed', async () => {
    const viaProxy = await connect(proxy.urlFor(database));
    const direct = await connect(database.url);
    try {
      await viaProxy.query('SELECT 1');
      await proxy.addToxic({
        name: 'blackhole',
        type: 'timeout',
        stream: 'upstream',
        attributes: { timeout: 0 },
      });
      const stuck = viaProxy.query<{ n: number }>('SELECT 42 AS n');
      expect((await within(stuck, 1_500)).done).toBe(false);
      expect((await direct.query<{ n: number }>('SELECT 7 AS n')).rows[0]?.n).toBe(7);

      await proxy.removeToxic('blackhole');
      // Toxiproxy 2.5 closes a blackholed connection when the toxic goes (it does not replay
      // the held bytes), so the stuck query ends in an error and a worker must reconnect.
      const released = await within(
        stuck.then(
          () => 'completed',
          (error: Error) => error.message,
        ),
        5_000,
      );
      expect(released).toEqual({ done: true, value: 'Connection terminated unexpectedly' });
      const fresh = await queryOnce(proxy.urlFor(database), 'SELECT 8 AS n');
      expect(fresh.rows[0]).toEqual({ n: 8 });
    } finally {
      await proxy.heal();
      await viaProxy.end().catch(() => undefined);
      await direct.end();
    }
  });

  it('resets connections under a reset_peer toxic', async () => {
    await proxy.addToxic({
      name: 'reset',
      type: 'reset_peer',
      stream: 'upstream',
      attributes: { timeout: 0 },
    });
    try {
      await expect(queryOnce(proxy.urlFor(database), 'SELECT 1')).rejects.toThrow(
        /ECONNRESET|Connection terminated|reset/i,
      );
    } finally {
      await proxy.removeToxic('reset');
    }
    await expect(queryOnce(proxy.urlFor(database), 'SELECT 1')).resolves.toBeDefined();
  });

  it('refuses connections while disabled, and carries them again once enabled', async () => {
    await proxy.setEnabled(false);
    try {
      await expect(queryOnce(proxy.urlFor(database), 'SELECT 1')).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await proxy.setEnabled(true);
    }
    await expect(queryOnce(proxy.urlFor(database), 'SELECT 1')).resolves.toBeDefined();
  });

  it('heal() removes every toxic and re-enables the proxy', async () => {
    await proxy.addToxic({
      name: 'slow',
      type: 'latency',
      stream: 'downstream',
      attributes: { latency: 5_000 },
    });
    await proxy.setEnabled(false);
    await proxy.heal();
    const response = await fetch(`${env.toxiproxyUrl}/proxies/${proxy.name}`);
    const body = (await response.json()) as { enabled: boolean; toxics: unknown[] };
    expect(body).toMatchObject({ enabled: true, toxics: [] });
    const started = performance.now();
    await queryOnce(proxy.urlFor(database), 'SELECT 1');
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  it('describe() names versions and never shows the password', async () => {
    const description = await env.describe();
    const password = decodeURIComponent(new URL(env.adminUrl).password);
    expect(password.length).toBeGreaterThan(8);
    expect(JSON.stringify(description)).not.toContain(password);
    expect(description.adminUrl).toContain(':***@');
    expect(description.postgresVersion).toMatch(/^\d+/);
    expect(description.toxiproxyVersion).not.toBe('');
  });
});

describe('proxies of runs side by side (--parallel)', () => {
  it('gives two runs asking for the same worker name their own proxies, and the name back once removed', async () => {
    const [a, b] = await Promise.all([env.createProxy('w1'), env.createProxy('w1')]);
    try {
      expect(a.name).not.toBe(b.name);
      expect([a.name, b.name].sort()).toEqual([`${env.runId}_w1`, `${env.runId}_w1-2`]);
      // Creating the second did not replace the first on the server: both carry queries, and a
      // partition of one leaves the other alone.
      const listed = (await (await fetch(`${env.toxiproxyUrl}/proxies`)).json()) as object;
      expect(Object.keys(listed)).toEqual(expect.arrayContaining([a.name, b.name]));
      await a.setEnabled(false);
      const viaB = await queryOnce(b.urlFor(database), 'SELECT 1 AS n');
      expect(viaB.rows[0]).toEqual({ n: 1 });
      await a.setEnabled(true);
    } finally {
      await a.remove();
      await b.remove();
    }
    const again = await env.createProxy('w1');
    expect(again.name).toBe(`${env.runId}_w1`);
    await again.remove();
  });
});
