import { describe, expect, it } from 'vitest';
import {
  parsePortRange,
  externalOptionsFromEnv,
  ExternalEnvironmentProvider,
} from '../../src/env/external-env.js';
import { selectEnvironment } from '../../src/env/select-env.js';
import { RunDatabases } from '../../src/env/run-databases.js';
import { UnsafeDatabaseError } from '../../src/errors.js';

describe('external settings', () => {
  it('parse port ranges', () => {
    expect(parsePortRange('8666-8669')).toEqual([8666, 8667, 8668, 8669]);
    expect(parsePortRange('9000')).toEqual([9000]);
    expect(() => parsePortRange('9-1')).toThrow(/TOXIPROXY_LISTEN_PORTS/);
    expect(() => parsePortRange('a-b')).toThrow(/TOXIPROXY_LISTEN_PORTS/);
  });

  it('come from the environment only when both URLs are set', () => {
    expect(externalOptionsFromEnv({ DATABASE_URL: 'postgres://h/d' })).toBeUndefined();
    expect(
      externalOptionsFromEnv({
        DATABASE_URL: 'postgres://h/d',
        TOXIPROXY_URL: 'http://h:8474',
        TOXIPROXY_UPSTREAM: 'postgres:5432',
      }),
    ).toMatchObject({ upstream: 'postgres:5432', listenPorts: undefined });
  });

  it('ask for a TCP upstream when DATABASE_URL names a socket, before connecting anywhere', async () => {
    const provider = new ExternalEnvironmentProvider({
      databaseUrl: 'postgresql://lp@%2Fvar%2Frun%2Fpostgresql/postgres',
      toxiproxyUrl: 'http://127.0.0.1:1',
    });
    await expect(provider.start()).rejects.toThrow(
      /Unix socket in \/var\/run\/postgresql, which Toxiproxy cannot proxy; set TOXIPROXY_UPSTREAM/,
    );
  });
});

describe('choosing the environment', () => {
  const urls = { DATABASE_URL: 'postgres://h/d', TOXIPROXY_URL: 'http://h:8474' };

  it('flag > LEASEPROOF_ENV > external when the URLs are set > embedded', async () => {
    expect((await selectEnvironment({ env: {} })).name).toBe('embedded');
    expect((await selectEnvironment({ env: urls })).name).toBe('external');
    expect((await selectEnvironment({ env: { ...urls, LEASEPROOF_ENV: 'embedded' } })).name).toBe(
      'embedded',
    );
    expect(
      (await selectEnvironment({ explicit: 'containers', env: { LEASEPROOF_ENV: 'embedded' } }))
        .name,
    ).toBe('containers');
  });

  it('explains a bad name and a missing URL', async () => {
    await expect(selectEnvironment({ explicit: 'kubernetes', env: {} })).rejects.toThrow(
      /unknown environment "kubernetes"; expected one of embedded, external, containers/,
    );
    await expect(selectEnvironment({ explicit: 'external', env: {} })).rejects.toThrow(
      /--env external needs DATABASE_URL .* and TOXIPROXY_URL/,
    );
  });
});

describe('run databases', () => {
  it('refuse a foreign database without --i-own-this-database', () => {
    expect(
      () => new RunDatabases({ adminUrl: 'postgres://h/app', runId: 'r', useAsIs: 'app' }),
    ).toThrow(UnsafeDatabaseError);
    expect(
      () =>
        new RunDatabases({
          adminUrl: 'postgres://h/app',
          runId: 'r',
          useAsIs: 'app',
          iOwnThisDatabase: true,
        }),
    ).not.toThrow();
  });
});
