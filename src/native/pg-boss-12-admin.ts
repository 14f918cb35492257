/**
 * The controller's side of pg-boss 12, run under Node 22 as a one-shot program:
 * `node pg-boss-12-admin.js <request.json>`. pg-boss 12 does not load on leaseproof's Node 20,
 * so the controller asks this program to install pg-boss's schema and the run's queue (`setup`,
 * pg-boss's own migration and `createQueue`) or to insert the run's jobs (`enqueue`, pg-boss's
 * `insert`), over a direct connection named as the request says; it prints one JSON object.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PG_BOSS_QUEUE, PG_BOSS_SCHEMA } from '../libraries/pg-boss/adapter.js';
import type { PgBoss12Request } from '../libraries/pg-boss/v12-terms.js';
import { importPgBoss12 } from './targets/pg-boss-12-target.js';

interface AdminBoss {
  on(event: 'error', listener: (error: unknown) => void): void;
  start(): Promise<unknown>;
  stop(options: { graceful?: boolean; wait?: boolean }): Promise<void>;
  createQueue(name: string, options: Record<string, unknown>): Promise<void>;
  insert(name: string, jobs: Record<string, unknown>[]): Promise<unknown>;
}

const file = process.argv[2];
if (file === undefined) {
  process.stderr.write('usage: pg-boss-12-admin <request.json>\n');
  process.exit(2);
}
// stdout carries the answer only.
const out = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);
const request = JSON.parse(readFileSync(file, 'utf8')) as PgBoss12Request;
const PgBoss = (await importPgBoss12()) as unknown as new (o: Record<string, unknown>) => AdminBoss;
const dir = process.env.LEASEPROOF_PG_BOSS_DIR ?? '';
const { version } = JSON.parse(
  readFileSync(join(dir, 'node_modules', 'pg-boss', 'package.json'), 'utf8'),
) as { version: string };
const boss = new PgBoss({
  connectionString: request.databaseUrl,
  application_name: request.applicationName,
  schema: PG_BOSS_SCHEMA,
  max: 1,
  supervise: false,
  schedule: false,
  migrate: request.op === 'setup',
});
boss.on('error', (error) => process.stderr.write(`pg-boss: ${String(error)}\n`));
await boss.start();
try {
  if (request.op === 'setup') {
    await boss.createQueue(PG_BOSS_QUEUE, request.queue);
  } else {
    await boss.insert(
      PG_BOSS_QUEUE,
      request.jobs.map((job) => ({
        id: job.id,
        data: job.data,
        ...(job.retryLimit !== undefined && { retryLimit: job.retryLimit }),
      })),
    );
  }
} finally {
  await boss.stop({ graceful: false, wait: true });
}
out(`${JSON.stringify({ version })}\n`);
