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
      // The control, a correct queue built another way, runs beside the base everywhere.
      expect(killed.stdout).toMatch(
        /^reap-on-poll\s+\.\s+clean\s+-\s+\(none: a correct control\)/m,
      );
      expect(killed.stdout).toMatch(/^fence-without-deadline\s+K\s+killed\s+1\s+no-stale-ack/m);
      expect(killed.stdout).toMatch(
        /mutation score 100% \(1\/1 killed\), 1 scenarios × 3 queues in [\d.]+s wall time/,
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

  // The default matrix is guided by the simulation: unconditional-ack is killed there on
  // lone-worker-pause and confirmed on a real run; main-thread-heartbeat needs a blocked event
  // loop, which the simulation does not model, so it is left to real runs and the matrix says
  // why. Only real runs count as kills.
  it(
    'runs for real what the simulation led to, and says why a variant was left to real runs',
    { timeout: 300_000, retry: 1 },
    async () => {
      const scenarios = await tempDir();
      for (const f of ['blocked-event-loop', 'lone-worker-pause']) {
        await copyFile(`scenarios/${f}.yaml`, join(scenarios, `${f}.yaml`));
      }
      const out = await tempDir();
      const result = await finished(
        spawnCli(
          [
            'mutants',
            '--scenarios',
            scenarios,
            '--out',
            out,
            '--variant',
            'unconditional-ack',
            '--variant',
            'main-thread-heartbeat',
          ],
          await stateEnv(),
        ),
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/simulation: unconditional-ack killed by no-stale-ack on 1/);
      expect(result.stderr).toMatch(
        /simulation: main-thread-heartbeat .* on 0 scenario\(s\): left to real runs/,
      );
      expect(result.stdout).toMatch(
        /^left to real runs: main-thread-heartbeat: the simulation killed it on 0 of the 1 scenario\(s\) it ran, fewer than 1; real runs killed it on blocked-event-loop \(a blocked event loop is not modelled/m,
      );
      expect(result.stdout).toMatch(/guided by the simulation: \d+ simulated runs/);
      const dir = /report: (.*)\/mutants\.html/.exec(result.stdout)![1]!;
      const matrix = JSON.parse(
        await readFile(join(process.cwd(), dir, 'mutants.json'), 'utf8'),
      ) as KillMatrix;
      const ack = matrix.variants.find((v) => v.queue === 'unconditional-ack')!;
      const lone = ack.cells.find((c) => c.scenario === 'lone-worker-pause')!;
      // Killed in simulation, then for real: both verdicts are in the cell.
      expect(lone).toMatchObject({ named: true, simulated: { named: true } });
      expect(lone.notRun).toBeUndefined();
      // Its other cell was not needed for real; it says so, and kills nothing.
      const blocked = ack.cells.find((c) => c.scenario === 'blocked-event-loop')!;
      expect(blocked.notRun).toMatch(/not run for real/);
      expect(blocked).toMatchObject({ verdict: 'unknown', named: false });
      expect(blocked.simulated).toHaveProperty('refused');
      expect(JSON.stringify(blocked.simulated)).toMatch(/blocked event loop/);
      const heartbeat = matrix.variants.find((v) => v.queue === 'main-thread-heartbeat')!;
      expect(heartbeat).toMatchObject({ status: 'killed' });
      expect(heartbeat.cells.find((c) => c.scenario === 'blocked-event-loop')!.named).toBe(true);
      expect(matrix.guide?.leftToReal.map((l) => l.queue)).toEqual(['main-thread-heartbeat']);
      // The base ran everywhere for real.
      expect(matrix.base.cells.every((c) => c.verdict === 'valid' && c.notRun === undefined)).toBe(
        true,
      );
    },
  );

  // A row-lock race: unlocked-claim's second claim waits for the first's row lock and takes the
  // job too. The simulation runs claim-stampede (no fault it cannot model) one statement at a
  // time and finds nothing; the real run kills it, and the matrix says why the simulation could
  // not.
  it(
    'leaves a race between transactions to real runs, with the reason printed',
    { timeout: 300_000, retry: 1 },
    async () => {
      const scenarios = await tempDir();
      await copyFile('scenarios/claim-stampede.yaml', join(scenarios, 'claim-stampede.yaml'));
      const result = await finished(
        spawnCli(
          [
            'mutants',
            '--scenarios',
            scenarios,
            '--out',
            await tempDir(),
            '--variant',
            'unlocked-claim',
          ],
          await stateEnv(),
        ),
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(
        /simulation: unlocked-claim killed by exclusive-claim on 0 scenario\(s\): left to real runs/,
      );
      expect(result.stdout).toMatch(/^unlocked-claim\s+K\s+killed\s+1\s+exclusive-claim/m);
      expect(result.stdout).toMatch(
        /^left to real runs: unlocked-claim: the simulation killed it on 0 of the 1 scenario\(s\) it ran, fewer than 1; real runs killed it on claim-stampede \(modelled, and missed: the race it needs is one the simulation does not run \(row-lock waits between transactions/m,
      );
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
