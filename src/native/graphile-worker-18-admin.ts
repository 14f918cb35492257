/**
 * The controller's side of graphile-worker 0.18, run under Node 22 as a one-shot program:
 * `node graphile-worker-18-admin.js <request.json>`. 0.18 does not load on leaseproof's Node 20,
 * so the controller asks this program to install graphile-worker's schema with 0.18's own
 * migrations (`runMigrations`), over a direct connection named as the request says; it prints one
 * JSON object. Jobs are enqueued by the schema's own `add_job` SQL function, which needs no
 * program.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { GRAPHILE_SCHEMA } from '../libraries/graphile-worker/adapter.js';
import type { Graphile18Request } from '../libraries/graphile-worker/v18-release.js';
import { graphile18Version, importGraphile18 } from './targets/graphile-worker-18-target.js';

const file = process.argv[2];
if (file === undefined) {
  process.stderr.write('usage: graphile-worker-18-admin <request.json>\n');
  process.exit(2);
}
// stdout carries the answer only.
const out = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);
const request = JSON.parse(readFileSync(file, 'utf8')) as Graphile18Request;
const graphile = await importGraphile18();
const pool = new pg.Pool({
  connectionString: request.databaseUrl,
  application_name: request.applicationName,
  max: 1,
});
try {
  await graphile.runMigrations({ pgPool: pool, schema: GRAPHILE_SCHEMA });
} finally {
  await pool.end();
}
out(`${JSON.stringify({ version: graphile18Version() })}\n`);
