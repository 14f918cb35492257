/**
 * graphile-worker 0.18's own worker pool as a native worker: the same target as 0.17's
 * (`graphile-worker-target.ts`: `run()` with the run's settings, its SQL's two hard-coded
 * durations rewritten), under Node 22 with graphile-worker installed in `.tools/npm` (its folder
 * in `LEASEPROOF_GRAPHILE_WORKER_DIR`). 0.18 is an ES module with an `exports` map: only its
 * entry can be loaded, by file URL, resolved from that folder — never from leaseproof's own
 * node_modules, which hold 0.17.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GRAPHILE_18_DIR_ENV } from '../../libraries/graphile-worker/v18-release.js';
import {
  GraphileWorkerTarget,
  type GraphileRelease,
  type GraphileWorker,
} from './graphile-worker-target.js';

/** graphile-worker 0.18's entry, with `runMigrations` for the admin program. */
export interface GraphileWorker18 extends GraphileWorker {
  runMigrations(options: Record<string, unknown>): Promise<void>;
}

function folder(): string {
  const dir = process.env[GRAPHILE_18_DIR_ENV];
  if (dir === undefined || dir === '') {
    throw new Error(`graphile-worker 0.18 target: ${GRAPHILE_18_DIR_ENV} names no folder`);
  }
  return dir;
}

/** The installed release's version, from its package.json (which its `exports` do not export). */
export function graphile18Version(): string {
  const file = join(folder(), 'node_modules', 'graphile-worker', 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/** graphile-worker 0.18 from the folder the controller installed. */
export async function importGraphile18(): Promise<GraphileWorker18> {
  const entry = createRequire(join(folder(), 'package.json')).resolve('graphile-worker');
  return (await import(pathToFileURL(entry).href)) as GraphileWorker18;
}

/** The release the 0.18 target runs. */
export const GRAPHILE_18_RELEASE: GraphileRelease = {
  get label() {
    return `graphile-worker ${graphile18Version()}`;
  },
  load: importGraphile18,
};

/** graphile-worker 0.18's `run()` as a native target. */
export function graphileWorker18Target(): GraphileWorkerTarget {
  return new GraphileWorkerTarget(GRAPHILE_18_RELEASE);
}
