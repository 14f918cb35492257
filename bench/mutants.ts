import { mkdtemp } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runMutants } from '../src/mutants/run-mutants.js';
import { report } from './stats.js';

/**
 * `npm run mutants` as a figure (issue 25's target: ≤ 6 min, 100 % with every kill on a real
 * run, the reference clean everywhere): the curated suite against every known-bad variant with
 * `--min-kills 2`, guided by the simulation; `--full` runs the whole real matrix instead, for
 * the ratio. Opt-in: each takes minutes.
 */
export async function benchMutants(args: string[]): Promise<void> {
  const full = args.includes('--full');
  const files = readdirSync('scenarios')
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join('scenarios', f));
  const out = await mkdtemp(join(tmpdir(), 'leaseproof-bench-mutants-'));
  const started = performance.now();
  const { matrix } = await runMutants({
    files,
    base: 'reference',
    minKills: 2,
    full,
    out,
    log: () => undefined,
  });
  const guide = matrix.guide;
  report({
    metric: full ? 'mutants_full_wall_time' : 'mutants_guided_wall_time',
    value: Math.round((performance.now() - started) / 1000),
    unit: 's',
    target: full ? 'none (the full real matrix, for the ratio)' : '<= 360',
    score: `${matrix.score.killed}/${matrix.score.total}`,
    ok: matrix.ok,
    falseAlarms: matrix.base.falseAlarms.length,
    scenarios: matrix.scenarios.length,
    ...(guide !== undefined && {
      simulatedRuns: guide.simulatedRuns,
      simulatedSeconds: Math.round(guide.simulatedMs / 1000),
      realRuns: guide.realRuns,
      fullRuns: guide.fullRuns,
      rounds: guide.reports.length,
      leftToReal: guide.leftToReal.map((l) => l.queue).join(', '),
    }),
  });
}
