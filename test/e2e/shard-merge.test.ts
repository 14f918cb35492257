import { copyFile, mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finished, spawnCli } from '../support/run-node.js';

/** The verdict table a command printed, without its warning marks (see below). */
function verdictTable(stdout: string): string {
  const table = stdout.split('\n\n')[0] ?? '';
  // `*` marks a valid verdict with a warning (an expiry no fault explains): a matter of timing
  // that two real runs of one scenario need not share. The verdicts themselves must match.
  return table.replace(/\*/g, ' ').replace(/ +$/gm, '');
}

describe('suite --shard + merge', () => {
  it(
    'shard 1/2 + shard 2/2 + merge print the verdict table of one unsharded run, and exit as it does',
    { timeout: 300_000, retry: 1 },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'leaseproof-shards-'));
      const scenarios = join(dir, 'scenarios');
      await mkdir(scenarios);
      // A scenario the known-bad queue fails and one it passes, against both queues: each shard
      // holds one run of each scenario (round robin over scenario × queue).
      for (const name of ['pause-past-lease', 'crash-mid-handler']) {
        await copyFile(`scenarios/${name}.yaml`, join(scenarios, `${name}.yaml`));
      }
      const queues = ['--queue', 'reference', '--queue', 'unconditional-ack'];
      const whole = await finished(
        spawnCli(['suite', scenarios, ...queues, '--out', join(dir, 'whole')]),
      );
      const shards = await Promise.all(
        [1, 2].map((i) =>
          finished(
            spawnCli([
              'suite',
              scenarios,
              ...queues,
              '--parallel',
              '1',
              '--shard',
              `${i}/2`,
              '--out',
              join(dir, 'artifacts', `shard-${i}`),
            ]),
          ),
        ),
      );
      const merged = await finished(
        spawnCli(['merge', join(dir, 'artifacts'), '--out', join(dir, 'merged')]),
      );
      expect(whole.code, whole.stderr).toBe(1);
      expect(merged.code, merged.stderr).toBe(1);
      expect(shards.map((s) => s.stderr)).toEqual([
        expect.stringContaining('shard 1/2: 2 of the plan'),
        expect.stringContaining('shard 2/2: 2 of the plan'),
      ]);
      const table = verdictTable(whole.stdout);
      expect(table.split('\n')).toHaveLength(6);
      expect(table).toMatch(/pause-past-lease +unconditional-ack +FAIL/);
      expect(verdictTable(merged.stdout)).toBe(table);
    },
  );
});
