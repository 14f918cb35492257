import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareQueueAdapter } from '../src/libraries/load-adapter.js';
import { LIBRARY_QUEUES } from '../src/libraries/registry.js';
import { scenarioFiles } from '../src/cli/scenario-folder.js';
import { runScenarios } from '../src/run/run-scenarios.js';
import { report } from './stats.js';

/**
 * The curated suite against every real library target, one after another (opt-in: together
 * they take a quarter of an hour and more, which is why CI runs each library's short end-to-end
 * tests and conformance instead, and this bench runs the suites). Per queue: the suite's wall
 * time, and per invariant how many scenarios were valid, invalid, unknown — the figures the
 * README's "Testing …" tables quote. A target whose toolchain is missing is reported as skipped
 * with why. `npm run bench -- libraries [queue…]` runs only the named ones.
 */
export async function benchLibrarySuites(only: string[]): Promise<void> {
  const files = await scenarioFiles('scenarios');
  const queues = LIBRARY_QUEUES.map((q) => q.name).filter(
    (name) => only.length === 0 || only.includes(name),
  );
  for (const queue of queues) {
    try {
      await prepareQueueAdapter(queue);
    } catch (error) {
      report({
        metric: 'library_suite_skipped',
        value: 0,
        unit: 'scenarios',
        queue,
        why: String(error),
      });
      continue;
    }
    const started = performance.now();
    const result = await runScenarios({
      files,
      queues: [queue],
      out: await mkdtemp(join(tmpdir(), 'leaseproof-bench-')),
      log: () => undefined,
    });
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    const invariants: Record<string, Record<string, number>> = {};
    let errors = 0;
    for (const outcome of result.outcomes) {
      if (outcome.error !== undefined) errors += 1;
      for (const r of outcome.result.results) {
        const tally = (invariants[`${r.id} ${r.checker}`] ??= {});
        tally[r.valid] = (tally[r.valid] ?? 0) + 1;
      }
    }
    report({
      metric: 'library_suite_wall_time',
      value: seconds,
      unit: 's',
      queue,
      scenarios: result.outcomes.length,
      errors,
      invariants,
      report: result.dir,
    });
  }
}
