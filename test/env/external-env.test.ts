import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import { ExternalEnvironmentProvider } from '../../src/env/external-env.js';
import { listOwnedDatabases, withAdminClient } from '../../src/env/run-databases.js';
import { withDatabaseUrl } from '../../src/env/database-url.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { UnsafeDatabaseError } from '../../src/errors.js';
import { freePort } from '../../src/env/free-port.js';
import { queryOnce } from '../support/pg.js';

// "Someone else's servers": an embedded environment plays the servers a user runs themselves;
// the external provider only gets their URLs.
let servers: StartedEnvironment;

beforeAll(async () => {
  servers = await new EmbeddedEnvironmentProvider().start();
  await withAdminClient(servers.adminUrl, (c) => c.query('CREATE DATABASE users_own_app'));
});

afterAll(async () => {
  await servers?.stop();
});

const proxyCount = async (): Promise<number> =>
  Object.keys((await (await fetch(`${servers.toxiproxyUrl}/proxies`)).json()) as object).length;

describe('the external provider', () => {
  it('creates its own database and proxy on running servers, and removes only those', async () => {
    const proxiesBefore = await proxyCount();
    const env = await new ExternalEnvironmentProvider({
      databaseUrl: servers.adminUrl,
      toxiproxyUrl: servers.toxiproxyUrl,
    }).start();
    const database = await env.createDatabase();
    expect(database.name).toMatch(/^leaseproof_[a-z0-9_]+_1$/);
    const proxy = await env.createProxy('w1');
    const result = await queryOnce(proxy.urlFor(database), 'SELECT current_database() AS db');
    expect(result.rows[0]).toEqual({ db: database.name });
    expect(await proxyCount()).toBe(proxiesBefore + 1);

    await env.stop();
    expect(await listOwnedDatabases(servers.adminUrl)).not.toContain(database.name);
    expect(await proxyCount()).toBe(proxiesBefore);
    // The servers themselves are not the provider's to stop, nor the user's own database.
    const dbs = await queryOnce(servers.adminUrl, 'SELECT datname FROM pg_database');
    expect(dbs.rows.map((r: { datname: string }) => r.datname)).toContain('users_own_app');
  });

  it('refuses to run inside a database it does not own unless told it may, and never drops it', async () => {
    const appUrl = withDatabaseUrl(servers.adminUrl, { database: 'users_own_app' });
    await expect(
      new ExternalEnvironmentProvider({
        databaseUrl: appUrl,
        toxiproxyUrl: servers.toxiproxyUrl,
        iOwnThisDatabase: false,
      })
        .start()
        .then(async (env) => {
          // Without the flag it may still create its own databases next to the user's one.
          const db = await env.createDatabase();
          await env.stop();
          return db.name;
        }),
    ).resolves.toMatch(/^leaseproof_/);

    const env = await new ExternalEnvironmentProvider({
      databaseUrl: appUrl,
      toxiproxyUrl: servers.toxiproxyUrl,
      iOwnThisDatabase: true,
    }).start();
    const database = await env.createDatabase();
    expect(database).toMatchObject({ name: 'users_own_app', owned: false });
    await database.drop();
    await env.stop();
    const dbs = await queryOnce(servers.adminUrl, 'SELECT datname FROM pg_database');
    expect(dbs.rows.map((r: { datname: string }) => r.datname)).toContain('users_own_app');
  });

  it('never drops a database without the leaseproof_ prefix', async () => {
    const { dropOwnedDatabase } = await import('../../src/env/run-databases.js');
    await expect(dropOwnedDatabase(servers.adminUrl, 'users_own_app')).rejects.toBeInstanceOf(
      UnsafeDatabaseError,
    );
    const dbs = await queryOnce(servers.adminUrl, 'SELECT datname FROM pg_database');
    expect(dbs.rows.map((r: { datname: string }) => r.datname)).toContain('users_own_app');
  });

  it('hands out the published port range to proxies, in order, and says when it runs out', async () => {
    const env = await new ExternalEnvironmentProvider({
      databaseUrl: servers.adminUrl,
      toxiproxyUrl: servers.toxiproxyUrl,
      listenHost: '127.0.0.1',
      listenPorts: '0-0',
    })
      .start()
      .catch((e: Error) => e);
    // Port 0 is not a port one can publish: the range is rejected before anything is created.
    expect(env).toBeInstanceOf(Error);
    expect((env as Error).message).toContain('TOXIPROXY_LISTEN_PORTS');
  });
});

describe('published proxy ports', () => {
  it('gives a removed proxy its port back, so a long suite never runs out of a fixed range', async () => {
    const base = await freePort();
    const env = await new ExternalEnvironmentProvider({
      databaseUrl: servers.adminUrl,
      toxiproxyUrl: servers.toxiproxyUrl,
      listenHost: '127.0.0.1',
      listenPorts: `${base}`,
    }).start();
    try {
      const database = await env.createDatabase();
      // One published port, three runs one after the other: each gets the port the last gave back.
      for (let run = 0; run < 3; run += 1) {
        const proxy = await env.createProxy('w1');
        expect(proxy.port).toBe(base);
        expect((await queryOnce(proxy.urlFor(database), 'SELECT 1 AS n')).rows[0]).toEqual({
          n: 1,
        });
        await proxy.remove();
      }
      // While one holds it, a second is told the range is used up.
      const held = await env.createProxy('w1');
      await expect(env.createProxy('w2')).rejects.toThrow(/proxy ports of TOXIPROXY_LISTEN_PORTS/);
      await held.remove();
    } finally {
      await env.stop();
    }
  });
});
