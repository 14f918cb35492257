import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeHistory } from '../../src/history/jsonl.js';
import type { History } from '../../src/history/types.js';
import {
  cleanRun,
  expiryWithoutFault,
  staleAckAfterReclaimBothComplete,
} from '../checker/fixtures/anomalies.js';
import { finished, spawnCli } from '../support/run-node.js';

let dir: string;
// Each run gets a state folder of its own, so that no leftover record of another test is reaped.
const env = async (): Promise<NodeJS.ProcessEnv> => ({
  LEASEPROOF_STATE_DIR: await mkdtemp(join(tmpdir(), 'leaseproof-check-state-')),
});

/** Writes a history as JSONL by hand: the header line, then one event per line. */
async function jsonl(name: string, history: History): Promise<string> {
  const file = join(dir, name);
  const lines = [history.header, ...history.events].map((line) => JSON.stringify(line));
  await writeFile(file, lines.join('\n') + '\n');
  return file;
}

async function check(...args: string[]) {
  return finished(spawnCli(['check', ...args], await env()));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'leaseproof-check-'));
});

describe('leaseproof check', () => {
  it('exits 0 on a valid history and prints the verdict table', async () => {
    const result = await check(await jsonl('clean.jsonl', cleanRun()));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^checker\s+verdict\s+counts\s+first evidence$/);
    expect(lines.slice(1, 10).map((l) => l.split(/\s+/).slice(0, 3).join(' '))).toEqual([
      'no-stale-ack (I1) valid',
      'single-completion (I2) valid',
      'no-lost-job (I3) valid',
      'exclusive-claim (I4) valid',
      'at-least-once-bound (I5) valid',
      'lease-honored (I6) valid',
      'bounded-zombie (I7) valid',
      'timely-recovery (I8) valid',
      'explained-expiry (I9) valid',
    ]);
    expect(lines[lines.length - 1]).toBe(
      'verdict: valid (ε = 5ms, stale acks strict, unexplained expiries warned)',
    );
  });

  it('exits 1 on an invalid history, with the first evidence of each failed checker', async () => {
    const result = await check(
      await jsonl('twice.jsonl', staleAckAfterReclaimBothComplete()),
      '--epsilon',
      '2',
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /no-stale-ack \(I1\)\s+INVALID\s+acks=2 stale=1 .*job 1: ack by w1 \(claim 1\) committed at \+405ms/,
    );
    expect(result.stdout).toMatch(
      /single-completion \(I2\)\s+INVALID\s+.*job 1: completed 2 times: by w2 at \+300ms, by w1 at \+405ms/,
    );
    expect(result.stdout).toMatch(/verdict: INVALID \(ε = 2ms,/);
  });

  it('follows --strict-causes and --json', async () => {
    const file = await jsonl('unexplained.jsonl', expiryWithoutFault());
    const lenient = await check(file);
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toMatch(/explained-expiry \(I9\)\s+valid\s+.*warning: 1 of 1 expiries/);
    const strict = await check(file, '--strict-causes', '--json');
    expect(strict.code).toBe(1);
    const verdict = JSON.parse(strict.stdout) as {
      valid: string;
      results: { checker: string; valid: string }[];
    };
    expect(verdict.valid).toBe('invalid');
    expect(verdict.results.find((r) => r.checker === 'explained-expiry')?.valid).toBe('invalid');
  });

  it("reads a report's gzip history as it is", async () => {
    const file = join(dir, 'clean.history.jsonl.gz');
    await writeHistory(file, cleanRun());
    const result = await check(file);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/no-stale-ack \(I1\)\s+valid/);
  });

  it('exits 2 on a cut history (a checker cannot tell)', async () => {
    const history = cleanRun();
    history.events.pop();
    const result = await check(await jsonl('cut.jsonl', history));
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/no-lost-job \(I3\)\s+unknown\s+.*the history was cut/);
  });

  it('exits 2 with one clear line for a missing file, a malformed one, or a bad epsilon', async () => {
    const missing = await check(join(dir, 'nope.jsonl'));
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^leaseproof: .*nope\.jsonl: cannot be read: ENOENT/),
    ]);

    const file = join(dir, 'bad.jsonl');
    await writeFile(file, `${JSON.stringify(cleanRun().header)}\n{"type":"audit","t":"soon"}\n`);
    const malformed = await check(file);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        /^leaseproof: .*bad\.jsonl:2: audit event field "t" is "soon", expected a number$/,
      ),
    ]);

    const epsilon = await check(await jsonl('ok.jsonl', cleanRun()), '--epsilon', 'soon');
    expect(epsilon.code).toBe(2);
    expect(epsilon.stderr.trim()).toBe(
      'leaseproof: --epsilon takes milliseconds or a duration: a number of ms (20, 0.5) or a ' +
        'duration (20ms, 1s, 250us); got "soon"',
    );
  });

  it('takes --epsilon as a duration too, as run does', async () => {
    const file = await jsonl('ok-duration.jsonl', cleanRun());
    for (const [given, shown] of [
      ['2ms', '2ms'],
      ['0.01s', '10ms'],
      ['7', '7ms'],
    ] as const) {
      const result = await check(file, '--epsilon', given);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(`verdict: valid (ε = ${shown},`);
    }
  });
});
