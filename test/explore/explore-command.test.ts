import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finished, spawnCli } from '../support/run-node.js';

const tempDir = (): Promise<string> => mkdtemp(join(tmpdir(), 'leaseproof-explore-cli-'));
const stateEnv = async (): Promise<NodeJS.ProcessEnv> => ({
  LEASEPROOF_STATE_DIR: await tempDir(),
  DATABASE_URL: '',
  TOXIPROXY_URL: '',
  LEASEPROOF_ENV: '',
});

describe('leaseproof explore', () => {
  it('exits 2 on a bad flag, before starting anything', async () => {
    const result = await finished(spawnCli(['explore', '--runs', '0'], await stateEnv()));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--runs must be an integer from 1');
  });

  it('prints progress, the violated invariant, the file and the replay command; exits 1', async () => {
    const out = await tempDir();
    const result = await finished(
      spawnCli(
        [
          'explore',
          ...['--queue', 'worker-clock-lease', '--seed', '68', '--runs', '3'],
          ...['--budget', '15s', '--out', out, '--parallel', '1'],
        ],
        await stateEnv(),
      ),
    );
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/explore: shrink, \d+ runs, \d+ failures, \d+ shrink steps/);
    expect(result.stdout).toContain('violated: lease-honored');
    expect(result.stdout).toMatch(
      /replay: leaseproof run .*worker-clock-lease-68-1\.yaml --queue worker-clock-lease/,
    );
    // One search at --parallel 1: it draws from the given seed, and its failing run is kept.
    expect(result.stdout).toContain('search seed: 68 ');
    expect(result.stdout).toMatch(/first failing run: .*worker-clock-lease-68-1\.first-failure\//);
  }, 120_000);
});
