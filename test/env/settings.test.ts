import { describe, expect, it } from 'vitest';
import {
  formatDatabaseUrl,
  parseDatabaseUrl,
  redactUrl,
  withDatabaseUrl,
} from '../../src/env/database-url.js';
import { parsePortRange, externalOptionsFromEnv } from '../../src/env/external-env.js';
import { selectEnvironment } from '../../src/env/select-env.js';
import { RunDatabases } from '../../src/env/run-databases.js';
import { ConfigError, UnsafeDatabaseError } from '../../src/errors.js';

describe('database URLs', () => {
  it('parse, format and round-trip with awkward passwords', () => {
    const url = formatDatabaseUrl({
      host: '127.0.0.1',
      port: 5433,
      user: 'lp',
      password: 'p@ss:w/rd',
      database: 'leaseproof_x',
    });
    expect(parseDatabaseUrl(url, 'X')).toEqual({
      host: '127.0.0.1',
      port: 5433,
      user: 'lp',
      password: 'p@ss:w/rd',
      database: 'leaseproof_x',
    });
    expect(withDatabaseUrl(url, { database: 'other', port: 1 })).toBe(
      'postgres://lp:p%40ss%3Aw%2Frd@127.0.0.1:1/other',
    );
  });

  it('reject what is not a postgres URL, naming the setting and never the password', () => {
    expect(() => parseDatabaseUrl('mysql://u:secret@h/db', 'DATABASE_URL')).toThrow(
      /DATABASE_URL must use the postgres:\/\/ scheme/,
    );
    expect(() => parseDatabaseUrl('not a url secret', 'DATABASE_URL')).toThrow(ConfigError);
    try {
      parseDatabaseUrl('postgres://u:secret@', 'DATABASE_URL');
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toContain('DATABASE_URL');
      expect((error as Error).message).not.toContain('secret');
    }
  });

  it('redact passwords in any text', () => {
    expect(redactUrl('to postgres://a:b@h:1/d and postgresql://x:y%40z@h/d')).toBe(
      'to postgres://a:***@h:1/d and postgresql://x:***@h/d',
    );
    expect(redactUrl('postgres://nopassword@h/d')).toBe('postgres://nopassword@h/d');
  });
});

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
