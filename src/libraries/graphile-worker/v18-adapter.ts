/**
 * graphile-worker 0.18 under test in native mode (`--queue graphile-worker@0.18`): its own `run()`
 * worker pool under Node 22 (`src/native/targets/graphile-worker-18-target.ts`), with the release
 * pinned in `v18-release.ts` installed on first need into `.tools/npm/graphile-worker@<version>`
 * and Node 22 into `.tools/node22` — never into the project's node_modules, which keep 0.17 (the
 * `graphile-worker` and `graphile-worker-native` queues). 0.18 is ESM-only with an `exports` map
 * and declares Node ≥ 22.18, so it has no statements mode: leaseproof's own process cannot reach
 * its `dist/sql/` functions.
 *
 * Its lease is 0.17's (versions survey §2): the same `resetLockedAt` with `interval '4 hours'`,
 * the same 8–10 minute reset timer, the same claim, completion and failure SQL at concurrency 1,
 * the same defaults. So the mapping is 0.17's native one, under another Node and version; its
 * schema is made by 0.18's own migrations (000020 rewrites `add_job`), run by a one-shot admin
 * program under Node 22.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureNode22 } from '../../env/node22-install.js';
import { ensureNpmTools } from '../../env/npm-tools-install.js';
import { AdapterError } from '../../queue/adapter-error.js';
import { nativeOnlyPrimitives } from '../../queue/native-only.js';
import type { QueueAdapter, SetupContext } from '../../queue/types.js';
import { nodeNativeProgram, nodeProgramCommand } from '../program/node-native.js';
import { programClockLimits } from '../program/program-clock.js';
import { askedOnce, programJson } from '../program/program-json.js';
import { graphileWorkerQueue, recordLockTimeout } from './adapter.js';
import { graphileWorkerNativeQueue, nativeTerms } from './native-adapter.js';
import { GRAPHILE_18_SETTINGS } from './settings.js';
import { graphileSettings } from './terms.js';
import {
  GRAPHILE_18_DIR_ENV,
  GRAPHILE_18_VERSION,
  graphile18ToolsDir,
  type Graphile18Request,
} from './v18-release.js';

/** Node 22 and graphile-worker 0.18, installed on first need. */
async function installTools() {
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const node = await ensureNode22({ log });
  const dir = await ensureNpmTools(
    graphile18ToolsDir(),
    [`graphile-worker@${GRAPHILE_18_VERSION}`],
    { log },
  );
  return { node, env: { [GRAPHILE_18_DIR_ENV]: dir } };
}

const tools = askedOnce(installTools);

/** Runs graphile-worker 0.18's migrations under Node 22, over a connection named as `ctx` says. */
async function migrate(ctx: SetupContext | undefined): Promise<void> {
  if (ctx?.databaseUrl === undefined) {
    throw new AdapterError('graphile-worker@0.18: setup() needs the run database’s URL');
  }
  const request: Graphile18Request = {
    op: 'migrate',
    databaseUrl: ctx.databaseUrl,
    applicationName: ctx.applicationName ?? 'leaseproof-controller',
  };
  const { node, env } = await tools();
  const dir = await mkdtemp(join(tmpdir(), 'leaseproof-graphile-worker-18-'));
  try {
    const file = join(dir, 'request.json');
    await writeFile(file, JSON.stringify(request));
    await programJson<{ version: string }>(
      `graphile-worker ${GRAPHILE_18_VERSION} migrate`,
      nodeProgramCommand('native/graphile-worker-18-admin', [file], node),
      env,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const NAME = 'graphile-worker@0.18';

/** graphile-worker 0.18 through its own `run()` pool under Node 22 (`--queue graphile-worker@0.18`). */
export const graphileWorker18Queue: QueueAdapter = {
  name: NAME,
  description:
    `graphile-worker ${GRAPHILE_18_VERSION} (under Node 22) through its own run() worker pool: ` +
    'its fetch, completion, failure and resetLockedAt timer; lease = its 4-hour lock timeout, ' +
    'every duration at the same scale, no lease extension.',
  audit: graphileWorkerNativeQueue.audit,
  contract: graphileWorkerNativeQueue.contract!,
  settings: GRAPHILE_18_SETTINGS,
  get limits() {
    return programClockLimits();
  },
  ...nativeOnlyPrimitives(NAME),
  native: {
    ...graphileWorkerNativeQueue.native!,
    description:
      `graphile-worker ${GRAPHILE_18_VERSION} run() under Node 22 with its concurrency, ` +
      'pollInterval, min/maxResetLockedInterval and gracefulShutdownAbortTimeout at the run’s ' +
      'scale, on a pg pool through the worker’s proxy',
    program: async () => nodeNativeProgram(NAME, await tools()),
  },

  leaseTerms: (requested, settings) =>
    nativeTerms(requested, graphileSettings(requested, settings, GRAPHILE_18_SETTINGS), {
      library: `graphile-worker ${GRAPHILE_18_VERSION}`,
      mode: 'native mode under Node 22: its own run() worker pool',
    }),

  async setup(db, ctx) {
    await migrate(ctx);
    await recordLockTimeout(db, ctx);
  },
  teardown: (db) => graphileWorkerQueue.teardown(db),
  enqueue: (db, jobs, ctx) => graphileWorkerQueue.enqueue(db, jobs, ctx),
};
