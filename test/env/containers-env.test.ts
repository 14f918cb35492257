import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ContainersEnvironmentProvider,
  POSTGRES_IMAGE,
  RUN_ID_LABEL,
} from '../../src/env/containers-env.js';
import { probeDockerEngine } from '../../src/env/docker-engine.js';
import type { DatabaseProxy, RunDatabase, StartedEnvironment } from '../../src/env/types.js';
import { EnvironmentError } from '../../src/errors.js';

const engine = await probeDockerEngine();
const skipped = engine.available ? '' : ` [skipped: ${engine.reason}]`;
if (!engine.available) {
  console.warn(`containers provider tests skipped: ${engine.reason}`);
}

/** Image pulls on a cold machine take minutes; a warm start takes seconds. */
const START_TIMEOUT_MS = 300_000;

async function queryOne(url: string): Promise<{ database: string; port: number }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const result = await client.query<{ database: string; port: number }>(
      'SELECT current_database() AS database, inet_server_port() AS port',
    );
    const row = result.rows[0];
    if (row === undefined) throw new Error('no row');
    return row;
  } finally {
    await client.end();
  }
}

async function containersOfRun(runId: string): Promise<string[]> {
  const { getContainerRuntimeClient } = await import('testcontainers');
  const client = await getContainerRuntimeClient();
  const containers = await client.container.dockerode.listContainers({
    all: true,
    filters: { label: [`${RUN_ID_LABEL}=${runId}`] },
  });
  return containers.map((container) => container.Image);
}

describe('probeDockerEngine', () => {
  it('gives a reason exactly when no engine answers', () => {
    if (engine.available) {
      expect(engine).toEqual({ available: true });
    } else {
      expect(engine.reason).toMatch(/^no Docker engine answered: \S/);
    }
  });
});

describe.skipIf(engine.available)('ContainersEnvironmentProvider without Docker', () => {
  it('refuses to start with an EnvironmentError that names the fix', async () => {
    const failure = new ContainersEnvironmentProvider().start();
    await expect(failure).rejects.toBeInstanceOf(EnvironmentError);
    await expect(failure).rejects.toThrow(/Docker.*--env embedded/s);
  });
});

describe.skipIf(!engine.available)(`ContainersEnvironmentProvider against Docker${skipped}`, () => {
  const lines: string[] = [];
  let env: StartedEnvironment;
  let database: RunDatabase;
  let proxy: DatabaseProxy;

  beforeAll(async () => {
    env = await new ContainersEnvironmentProvider({ log: (line) => lines.push(line) }).start();
    database = await env.createDatabase();
    proxy = await env.createProxy('w1');
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    await env?.stop();
  }, 60_000);

  it('describes itself without the password', async () => {
    const description = await env.describe();
    const password = new URL(env.adminUrl).password;
    expect(password).not.toBe('');
    expect(JSON.stringify(description)).not.toContain(password);
    expect(description.adminUrl).toContain(':***@');
    expect(description.postgresVersion).toMatch(
      new RegExp(`^${/postgres:(\d+)/.exec(POSTGRES_IMAGE)?.[1]}\\.`),
    );
    expect(description.toxiproxyVersion).toBe('2.5.0');
    expect(lines.join('\n')).not.toContain(password);
  });

  it('carries a query through the proxy to PostgreSQL', async () => {
    expect(proxy.port).not.toBe(Number(new URL(database.url).port));
    expect(await queryOne(proxy.urlFor(database))).toEqual({
      database: database.name,
      port: 5432,
    });
  });

  it('stalls the proxy under a timeout toxic while a direct connection works, and heals', async () => {
    const stalled = new pg.Client({ connectionString: proxy.urlFor(database) });
    stalled.on('error', () => undefined);
    await stalled.connect();
    await proxy.addToxic({
      name: 'blackhole',
      type: 'timeout',
      stream: 'upstream',
      attributes: { timeout: 0 },
    });
    try {
      const outcome = await Promise.race([
        stalled.query('SELECT 1').then(
          () => 'answered',
          () => 'failed',
        ),
        sleep(1_000).then(() => 'still waiting'),
      ]);
      expect(outcome).toBe('still waiting');
      expect((await queryOne(database.url)).database).toBe(database.name);
    } finally {
      await proxy.removeToxic('blackhole');
      await Promise.race([stalled.end().catch(() => undefined), sleep(2_000)]);
    }
    expect((await queryOne(proxy.urlFor(database))).database).toBe(database.name);
  });

  it('stops idempotently and leaves no container behind', async () => {
    expect(await containersOfRun(env.runId)).toHaveLength(2);
    await env.stop();
    await env.stop();
    expect(await containersOfRun(env.runId)).toEqual([]);
  }, 60_000);
});
