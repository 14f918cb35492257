import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, report } from './stats.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Wall time of one process start to exit, in ms; throws with its stderr if it fails. */
function timed(args: string[]): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
  const ms = performance.now() - started;
  if (result.status !== 0) {
    throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  }
  return ms;
}

/**
 * How long the installed command takes to answer `--version` and `--help` (bin/leaseproof.js
 * on dist/ as last built: `npm run build` first), beside a bare `node -e 0` measured in the same
 * rounds, so that a busy machine shows in the baseline too. Target (issue 22): <= 300 ms median
 * for both; before verbs loaded lazily, `--version` took 765 ms on a quiet machine.
 */
export function benchCliStartup(runs = 15): Promise<void> {
  const commands: Record<string, string[]> = {
    'cli.node_baseline_ms': ['-e', '0'],
    'cli.version_ms': ['bin/leaseproof.js', '--version'],
    'cli.help_ms': ['bin/leaseproof.js', '--help'],
  };
  const samples = new Map<string, number[]>(Object.keys(commands).map((name) => [name, []]));
  // Round by round rather than command by command: load that comes and goes during the bench
  // then falls on all three alike.
  for (let i = 0; i < runs; i += 1) {
    for (const [name, args] of Object.entries(commands)) samples.get(name)?.push(timed(args));
  }
  for (const [name, values] of samples) {
    report({
      metric: name,
      value: Math.round(median(values)),
      unit: 'ms',
      stat: 'median',
      min: Math.round(Math.min(...values)),
      max: Math.round(Math.max(...values)),
      runs,
      ...(name !== 'cli.node_baseline_ms' && { target: '<= 300' }),
    });
  }
  return Promise.resolve();
}
