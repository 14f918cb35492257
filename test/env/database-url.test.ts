import { describe, expect, it } from 'vitest';
import { parse } from 'pg-connection-string';
import {
  formatDatabaseUrl,
  parseDatabaseUrl,
  redactUrl,
  withDatabaseUrl,
} from '../../src/env/database-url.js';
import { ConfigError } from '../../src/errors.js';

/** What node-postgres would connect with, less the database: must survive a per-run rename. */
function connectionSettingsBesidesDatabase(url: string): Record<string, unknown> {
  const { database: _database, ...rest } = parse(url);
  return rest;
}

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
      /DATABASE_URL must use the postgres:\/\/ scheme \(expected postgres:\/\/user:password@host/,
    );
    expect(() => parseDatabaseUrl('not a url secret', 'DATABASE_URL')).toThrow(
      /DATABASE_URL is not a URL \(expected postgres:\/\//,
    );
    expect(() => parseDatabaseUrl('postgres://h/db?port=99999', 'DATABASE_URL')).toThrow(
      /DATABASE_URL has port "99999"; expected a number from 1 to 65535/,
    );
    for (const bad of ['postgres://u:secret@', 'postgres://u:secret@h:x/db']) {
      try {
        parseDatabaseUrl(bad, 'DATABASE_URL');
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as Error).message).toContain('DATABASE_URL');
        expect((error as Error).message).toContain('expected');
        expect((error as Error).message).not.toContain('secret');
      }
    }
    expect(() => withDatabaseUrl('postgres://u:secret@', { database: 'x' }, 'admin URL')).toThrow(
      /admin URL/,
    );
  });

  it('redact passwords in any text', () => {
    expect(redactUrl('to postgres://a:b@h:1/d and postgresql://x:y%40z@h/d')).toBe(
      'to postgres://a:***@h:1/d and postgresql://x:***@h/d',
    );
    expect(redactUrl('postgres://nopassword@h/d')).toBe('postgres://nopassword@h/d');
  });
});

describe('a per-run database URL', () => {
  const rename = (url: string): string => withDatabaseUrl(url, { database: 'leaseproof_r_1' });

  it('keeps sslmode=require', () => {
    const url = 'postgres://lp:pw@db.example.com:5432/postgres?sslmode=require';
    expect(rename(url)).toBe('postgres://lp:pw@db.example.com:5432/leaseproof_r_1?sslmode=require');
  });

  it('keeps every query parameter, in order and as written', () => {
    const url =
      'postgresql://lp:pw@h:6543/app?sslmode=verify-full&application_name=my%20app' +
      '&options=-c%20statement_timeout%3D5000&connect_timeout=3';
    const renamed = rename(url);
    expect(renamed).toBe(
      'postgresql://lp:pw@h:6543/leaseproof_r_1?sslmode=verify-full&application_name=my%20app' +
        '&options=-c%20statement_timeout%3D5000&connect_timeout=3',
    );
    expect(connectionSettingsBesidesDatabase(renamed)).toEqual(
      connectionSettingsBesidesDatabase(url),
    );
    expect(parse(renamed).database).toBe('leaseproof_r_1');
  });

  it('keeps a password with special characters byte for byte', () => {
    const url = 'postgres://lp:p%40ss%3Aw%2Frd%25%20%23%3F@h/app';
    expect(rename(url)).toBe('postgres://lp:p%40ss%3Aw%2Frd%25%20%23%3F@h/leaseproof_r_1');
    expect(parseDatabaseUrl(rename(url), 'X').password).toBe('p@ss:w/rd% #?');
  });

  it('keeps a socket host in the authority', () => {
    const url = 'postgresql://user@%2Fvar%2Frun%2Fpostgresql/db';
    expect(rename(url)).toBe('postgresql://user@%2Fvar%2Frun%2Fpostgresql/leaseproof_r_1');
    expect(parseDatabaseUrl(url, 'X')).toMatchObject({ host: '/var/run/postgresql', port: 5432 });
  });

  it('keeps a socket host in ?host=, with or without a user', () => {
    expect(rename('postgres:///db?host=/tmp')).toBe('postgres:///leaseproof_r_1?host=/tmp');
    expect(rename('postgres://lp@/db?host=/tmp&port=5433')).toBe(
      'postgres://lp@/leaseproof_r_1?host=/tmp&port=5433',
    );
    expect(parseDatabaseUrl('postgres://lp@/db?host=/tmp&port=5433', 'X')).toMatchObject({
      host: '/tmp',
      port: 5433,
      user: 'lp',
    });
  });

  it('adds the database to a URL that had none', () => {
    expect(rename('postgres://lp@h?sslmode=require')).toBe(
      'postgres://lp@h/leaseproof_r_1?sslmode=require',
    );
  });
});

describe('a URL moved onto a proxy', () => {
  const onProxy = (url: string): string =>
    withDatabaseUrl(url, { host: '127.0.0.1', port: 8666, database: 'leaseproof_r_1' });

  it('changes host and port and keeps credentials and parameters', () => {
    expect(onProxy('postgres://lp:p%40ss@db:5432/app?sslmode=require')).toBe(
      'postgres://lp:p%40ss@127.0.0.1:8666/leaseproof_r_1?sslmode=require',
    );
  });

  it('drops host and port parameters, which would otherwise bypass the proxy', () => {
    const moved = onProxy('postgres://lp@/app?host=/tmp&port=5433&sslmode=disable');
    expect(moved).toBe('postgres://lp@127.0.0.1:8666/leaseproof_r_1?sslmode=disable');
    expect(parse(moved)).toMatchObject({ host: '127.0.0.1', port: '8666' });
  });

  it('brackets an IPv6 host', () => {
    expect(withDatabaseUrl('postgres://lp@h/app', { host: '::1', port: 1 })).toBe(
      'postgres://lp@[::1]:1/app',
    );
  });
});
