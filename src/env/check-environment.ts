import pg from 'pg';
import type { StartedEnvironment } from './types.js';

/** One step of `checkEnvironment`. */
export interface CheckStep {
  /** What was checked. */
  name: string;
  /** Whether it behaved as expected. */
  ok: boolean;
  /** What was seen. */
  detail: string;
}

/** The outcome of `checkEnvironment`: data, never an exception for a failed step. */
export interface CheckResult {
  /** True when every step passed. */
  ok: boolean;
  /** The steps, in order. */
  steps: CheckStep[];
}

/**
 * Proves the environment can do what a run needs: a query reaches PostgreSQL through a
 * Toxiproxy proxy, and the proxy really sits in the path (disabled, it refuses the connection;
 * enabled again, queries go through).
 */
export async function checkEnvironment(env: StartedEnvironment): Promise<CheckResult> {
  const steps: CheckStep[] = [];
  const step = async (name: string, run: () => Promise<string>): Promise<boolean> => {
    try {
      steps.push({ name, ok: true, detail: await run() });
      return true;
    } catch (error) {
      steps.push({
        name,
        ok: false,
        detail: error instanceof Error ? error.message : String(error),
      });
      return false;
    }
  };
  const database = await env.createDatabase();
  const proxy = await env.createProxy('check');
  try {
    const url = proxy.urlFor(database);
    // Each step only makes sense if the one before passed; the first failure ends the check.
    const checks: [string, () => Promise<string>][] = [
      [
        'query through the proxy',
        async () => {
          const row = await queryOnce(
            url,
            'SELECT clock_timestamp() AS now, current_database() AS db',
          );
          const at = new Date(String(row.now)).toISOString();
          return `${proxy.host}:${proxy.port} → ${String(row.db)} at ${at}`;
        },
      ],
      [
        'disabled proxy refuses connections',
        async () => {
          await proxy.setEnabled(false);
          try {
            await queryOnce(url, 'SELECT 1 AS one');
          } catch (error) {
            return `refused: ${error instanceof Error ? error.message : String(error)}`;
          }
          throw new Error('a query went through a disabled proxy: the proxy is not in the path');
        },
      ],
      [
        're-enabled proxy carries queries again',
        async () => {
          await proxy.setEnabled(true);
          await queryOnce(url, 'SELECT 1 AS one');
          return 'ok';
        },
      ],
    ];
    for (const [name, run] of checks) {
      if (!(await step(name, run))) break;
    }
  } finally {
    await proxy.remove();
    await database.drop();
  }
  return { ok: steps.every((s) => s.ok), steps };
}

async function queryOnce(url: string, sql: string): Promise<Record<string, unknown>> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: 3_000,
    application_name: 'leaseproof-check',
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const result = await client.query<Record<string, unknown>>(sql);
    return result.rows[0] ?? {};
  } finally {
    await client.end().catch(() => undefined);
  }
}
