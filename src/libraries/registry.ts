import type { QueueAdapter } from '../queue/types.js';
import { AdapterError } from '../queue/adapter-error.js';
import { referenceQueue } from '../queue/reference-queue.js';
import { KNOWN_BAD_VARIANTS } from '../queue/known-bad-queues.js';
import { CONTROL_QUEUES } from '../queue/control-queues.js';
import { pgBossQueue } from './pg-boss/adapter.js';
import { pgBossNativeQueue } from './pg-boss/native-adapter.js';
import {
  PG_BOSS_12_LEAST_MINOR,
  PG_BOSS_12_VERSION,
  pgBoss12Queue,
  pgBoss12QueueAt,
} from './pg-boss/v12-adapter.js';
import { graphileWorkerQueue } from './graphile-worker/adapter.js';
import { graphileWorkerNativeQueue } from './graphile-worker/native-adapter.js';
import { graphileWorker18Queue } from './graphile-worker/v18-adapter.js';
import { GRAPHILE_18_VERSION } from './graphile-worker/v18-release.js';
import { pgqueuerQueue } from './pgqueuer/adapter.js';
import { pgqueuerStatementsQueue } from './pgqueuer/statements-adapter.js';
import { procrastinateQueue } from './procrastinate/adapter.js';
import { procrastinateStatementsQueue } from './procrastinate/statements-adapter.js';
import { riverQueue } from './river/adapter.js';
import { dbSchedulerQueue } from './db-scheduler/adapter.js';

/**
 * Real queue libraries, driven through their own code (`src/libraries/<name>/`, one room per library). Their packages are
 * optional: each loads its library on first use and says what to install when it is missing.
 */
export const LIBRARY_QUEUES: readonly QueueAdapter[] = Object.freeze([
  pgBossQueue,
  pgBossNativeQueue,
  pgBoss12Queue,
  graphileWorkerQueue,
  graphileWorkerNativeQueue,
  graphileWorker18Queue,
  pgqueuerQueue,
  pgqueuerStatementsQueue,
  procrastinateQueue,
  procrastinateStatementsQueue,
  riverQueue,
  dbSchedulerQueue,
]);

/**
 * The queues that ship with leaseproof, by the name `--queue` takes: the reference first, then
 * the known-bad variants, the other correct queues (controls), then the real libraries.
 */
export const builtInQueues: Readonly<Record<string, QueueAdapter>> = Object.freeze(
  Object.fromEntries(
    [
      referenceQueue,
      ...KNOWN_BAD_VARIANTS.map((v) => v.queue),
      ...CONTROL_QUEUES,
      ...LIBRARY_QUEUES,
    ].map((q) => [q.name, q]),
  ),
);

/** The names of the built-in queues, reference first. */
export function queueNames(): string[] {
  return Object.keys(builtInQueues);
}

/** The built-in queue of that name, or undefined (also for names like `toString`). */
export function builtInQueue(name: string): QueueAdapter | undefined {
  return Object.hasOwn(builtInQueues, name) ? builtInQueues[name] : undefined;
}

/** One version of a library that `--queue <name>@<version>` takes. */
interface QueueVersion {
  /** The exact release it runs. */
  release: string;
  /** How it runs, for the error that lists the versions. */
  how: string;
  adapter: QueueAdapter;
  /** Another exact release of the major that runs the same way, or undefined. */
  exact?: (version: string) => QueueAdapter | undefined;
}

const PG_BOSS_10 = { release: '10.4.2', how: 'pinned, in the project’s node_modules' };
const GRAPHILE_17 = { release: '0.17.3', how: 'pinned, in the project’s node_modules' };
const GRAPHILE_18 = {
  release: GRAPHILE_18_VERSION,
  how:
    'its own run() loop under Node 22 (0.18 is ESM-only and needs Node 22.18), both installed ' +
    'into .tools on first need',
};
const PG_BOSS_12 = {
  release: PG_BOSS_12_VERSION,
  how:
    'its own loop under Node 22, both installed into .tools on first need; or an exact ' +
    `12.x from 12.${PG_BOSS_12_LEAST_MINOR}.0, the first with the job heartbeat`,
  // Another 12.x as a user runs it: installed beside the tested one, reported under its name.
  exact: (version: string) => {
    const minor = /^12\.(\d+)\.\d+$/.exec(version)?.[1];
    if (minor === undefined || Number(minor) < PG_BOSS_12_LEAST_MINOR) return undefined;
    return pgBoss12QueueAt(version);
  },
};

/**
 * The library versions a queue name takes after `@`, by major. A name without a version is the
 * pinned release (`pg-boss` is `pg-boss@10`); pg-boss 12 needs Node 22, so it has no primitives
 * mode (that would load it into leaseproof's own process) and `pg-boss@12` is its own loop, the
 * same queue as `pg-boss-native@12`. graphile-worker 0.18 likewise (ESM-only, Node 22.18):
 * `graphile-worker@0.18` is its own `run()` loop, the same queue as `graphile-worker-native@0.18`.
 */
const QUEUE_VERSIONS: Readonly<Record<string, Readonly<Record<string, QueueVersion>>>> =
  Object.freeze({
    'pg-boss': {
      '10': { ...PG_BOSS_10, adapter: pgBossQueue },
      '12': { ...PG_BOSS_12, adapter: pgBoss12Queue },
    },
    'pg-boss-native': {
      '10': { ...PG_BOSS_10, adapter: pgBossNativeQueue },
      '12': { ...PG_BOSS_12, adapter: pgBoss12Queue },
    },
    'graphile-worker': {
      '0.17': { ...GRAPHILE_17, adapter: graphileWorkerQueue },
      '0.18': { ...GRAPHILE_18, adapter: graphileWorker18Queue },
    },
    'graphile-worker-native': {
      '0.17': { ...GRAPHILE_17, adapter: graphileWorkerNativeQueue },
      '0.18': { ...GRAPHILE_18, adapter: graphileWorker18Queue },
    },
  });

/**
 * The built-in queue a versioned name (`pg-boss@12`, `pg-boss@12.38.1`, `pg-boss-native@10`)
 * stands for: a major, or the exact release leaseproof runs for it, or another release of that
 * major that runs the same way (`pg-boss@12.20.0`, installed on first need). `undefined` when the name
 * has no `@version`; an `AdapterError` naming the supported versions when it has one leaseproof
 * does not run.
 */
export function versionedQueue(name: string): QueueAdapter | undefined {
  const match = /^([a-z][a-z0-9-]*)@(.+)$/.exec(name);
  if (match === null) return undefined;
  const [, library = '', version = ''] = match;
  const versions = Object.hasOwn(QUEUE_VERSIONS, library) ? QUEUE_VERSIONS[library] : undefined;
  const supported = Object.entries(QUEUE_VERSIONS).flatMap(([lib, byMajor]) =>
    Object.entries(byMajor).map(([major, v]) => `${lib}@${major} (${v.release}, ${v.how})`),
  );
  if (versions === undefined) {
    const base = builtInQueue(library);
    throw new AdapterError(
      `queue "${name}": ${
        base === undefined
          ? `"${library}" is not a built-in queue`
          : `"${library}" runs one version`
      }${base === undefined ? '' : `, without a version: --queue ${library}`}; ` +
        `the versioned queues are ${supported.join('; ')}`,
    );
  }
  for (const [major, v] of Object.entries(versions)) {
    if (version === major || version === v.release) return v.adapter;
    const exact = v.exact?.(version);
    if (exact !== undefined) return exact;
  }
  throw new AdapterError(
    `queue "${name}": leaseproof does not run ${library} ${version}; it runs ` +
      Object.entries(versions)
        .map(([major, v]) => `${library}@${major} (${v.release}, ${v.how})`)
        .join(' and ') +
      ` — a major, or its exact release`,
  );
}
