import { copyFile, mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { KillMatrix } from '../../src/report/kill-matrix-types.js';
import { finished, spawnCli } from '../support/run-node.js';

const tempDir = (): Promise<string> => mkdtemp(join(tmpdir(), 'leaseproof-mutants-'));
const stateEnv = async (): Promise<NodeJS.ProcessEnv> => ({
  LEASEPROOF_STATE_DIR: await tempDir(),
  DATABASE_URL: '',
  TOXIPROXY_URL: '',
  LEASEPROOF_ENV: '',
});

describe('leaseproof mutants', () => {
  // Real runs: the reference and one variant through one scenario of the expired-but-not-
  // reclaimed window; a variant the scenario cannot catch must make the command fail.
  it(
    'prints the kill matrix and exits 0 only when every variant is killed by its named invariant',
    { timeout: 240_000, retry: 1 },
    async () => {
      const scenarios = await tempDir();
      await mkdir(scenarios, { recursive: true });
      await copyFile('scenarios/lone-worker-pause.yaml', join(scenarios, 'lone-worker-pause.yaml'));
      const out = await tempDir();
      const env = await stateEnv();
      const args = ['mutants', '--scenarios', scenarios, '--out', out];
      const killed = await finished(
        spawnCli([...args, '--variant', 'fence-without-deadline'], env),
      );
      expect(killed.code, killed.stderr).toBe(0);
      expect(killed.stdout).toMatch(/^reference\s+\.\s+clean/m);
      expect(killed.stdout).toMatch(/^fence-without-deadline\s+K\s+killed\s+1\s+no-stale-ack/m);
      expect(killed.stdout).toMatch(
        /mutation score 100% \(1\/1 killed\), 1 scenarios × 2 queues in [\d.]+s wall time/,
      );

      // No watchdog is a zombie bug; a lone worker's one-unit jobs leave it nothing to do after
      // the lease is lost, so this scenario alone cannot kill it: the command must say so.
      const survived = await finished(
        spawnCli([...args, '--variant', 'no-watchdog', '--json'], env),
      );
      expect(survived.code, survived.stderr).toBe(1);
      const matrix = JSON.parse(survived.stdout) as KillMatrix;
      expect(matrix.variants[0]).toMatchObject({ queue: 'no-watchdog', status: 'survived' });
      expect(matrix.ok).toBe(false);
      const index = await readFile(join(out, 'index.html'), 'utf8');
      expect(index).toContain('Mutation matrix');
      expect(index).toContain('mutants.html');
    },
  );

  it('refuses an unknown variant, naming the known ones', async () => {
    const result = await finished(
      spawnCli(['mutants', '--variant', 'nope', '--out', await tempDir()], await stateEnv()),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--variant nope: no such known-bad variant; the variants are unconditional-ack, /,
    );
  });
});
