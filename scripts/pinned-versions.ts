// The library versions the project pins, read from the files that pin them (package-lock.json,
// clients/go/go.mod, clients/python/requirements.txt, clients/java/pom.xml): what a library
// page names, and what a test holds every published page against, so a bumped pin without a
// rerun page fails.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PG_BOSS_12_VERSION } from '../src/libraries/pg-boss/v12-adapter.js';

const ROOT = join(import.meta.dirname, '..');

function read(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** The library versions the project pins, read from the files that pin them. */
export function pinnedVersions(): Record<string, string> {
  const lock = JSON.parse(read('package-lock.json')) as {
    packages: Record<string, { version?: string }>;
  };
  const npm = (name: string): string =>
    lock.packages[`node_modules/${name}`]?.version ?? 'not installed';
  const py = (name: string): string =>
    new RegExp(`^${name}==(\\S+)`, 'm').exec(read('clients/python/requirements.txt'))?.[1] ??
    'unknown';
  const river = /github\.com\/riverqueue\/river (v\S+)/.exec(read('clients/go/go.mod'))?.[1];
  const dbs = /<artifactId>db-scheduler<\/artifactId>\s*<version>([^<]+)</.exec(
    read('clients/java/pom.xml'),
  )?.[1];
  return {
    'pg-boss': `pg-boss ${npm('pg-boss')} (statements mode: its SQL under leaseproof's loop)`,
    'pg-boss-native': `pg-boss ${npm('pg-boss')} (its own work() loop)`,
    'pg-boss@12': `pg-boss ${PG_BOSS_12_VERSION} (its own work() loop, under Node 22)`,
    'graphile-worker': `graphile-worker ${npm('graphile-worker')} (statements mode)`,
    'graphile-worker-native': `graphile-worker ${npm('graphile-worker')} (its own run() loop)`,
    pgqueuer: `pgqueuer ${py('pgqueuer')} (its own QueueManager loop)`,
    'pgqueuer-statements': `pgqueuer ${py('pgqueuer')} (statements mode)`,
    procrastinate: `procrastinate ${py('procrastinate')} (its own worker)`,
    'procrastinate-statements': `procrastinate ${py('procrastinate')} (statements mode)`,
    river: `River ${river ?? 'unknown'} (its own Client)`,
    'db-scheduler': `db-scheduler ${dbs ?? 'unknown'} (its own Scheduler)`,
  };
}
