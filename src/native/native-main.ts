/**
 * Entry of a Node.js native worker program: `node native-main.js <target>`, started by
 * leaseproof's JSON-lines transport for a native adapter (`pg-boss-native`, `pg-boss@12`,
 * `graphile-worker-native`, `graphile-worker@0.18`). See `native-worker.ts`.
 */
import { NativeWorker, type NativeTarget } from './native-worker.js';
import { graphileWorker18Target } from './targets/graphile-worker-18-target.js';
import { GraphileWorkerTarget } from './targets/graphile-worker-target.js';
import { PgBoss12Target } from './targets/pg-boss-12-target.js';
import { PgBossTarget } from './targets/pg-boss-target.js';

/** The built-in Node.js targets, by the name the program takes. */
export const NODE_TARGETS: Readonly<Record<string, () => NativeTarget>> = Object.freeze({
  'pg-boss': () => new PgBossTarget(),
  'pg-boss@12': () => new PgBoss12Target(),
  'graphile-worker': () => new GraphileWorkerTarget(),
  'graphile-worker@0.18': graphileWorker18Target,
});

const name = process.argv[2] ?? '';
const make = Object.hasOwn(NODE_TARGETS, name) ? NODE_TARGETS[name] : undefined;
if (make === undefined) {
  process.stderr.write(
    `usage: native-main <target>; targets: ${Object.keys(NODE_TARGETS).join(', ')}\n`,
  );
  process.exit(2);
}
// stdout carries events only (written to its descriptor directly): anything a library prints
// goes to stderr.
process.stdout.write = process.stderr.write.bind(process.stderr);
const worker = new NativeWorker(make());
worker.main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `native worker: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
