import { spawnSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureGoProgram,
  GO_CLIENT_DIR,
  rescaleLibrary,
  writeClockOverlay,
} from '../../src/env/go-install.js';
import { goSkipReason, haveGo } from '../support/go.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'leaseproof-go-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!haveGo)(`the Go client and its build${goSkipReason}`, () => {
  it('passes its own tests (clients/go/leaseproof)', () => {
    const run = spawnSync('go', ['test', './leaseproof'], { cwd: GO_CLIENT_DIR, encoding: 'utf8' });
    expect(run.stdout + run.stderr).toMatch(/^ok\s+leaseproof\/client\/leaseproof/m);
    expect(run.status, run.stdout + run.stderr).toBe(0);
  }, 300_000);

  it("skews time.Now through the build's overlay, live, leaving the monotonic clock alone", async () => {
    const overlay = await writeClockOverlay(dir);
    const clockFile = join(dir, 'offset');
    await writeFile(clockFile, '+0.0000\n');
    const run = spawnSync('go', ['test', '-v', '-count=1', '-overlay', overlay, './clock'], {
      cwd: GO_CLIENT_DIR,
      encoding: 'utf8',
      env: { ...process.env, LEASEPROOF_CLOCK_FILE: clockFile, LEASEPROOF_CLOCK_OVERLAY: '1' },
    });
    // Run, not skipped: the overlay was in the build.
    expect(run.stdout).toMatch(
      /--- PASS: TestTheOffsetFileMovesTheWallClockLiveAndNotTheMonotonicOne/,
    );
    expect(run.status, run.stdout + run.stderr).toBe(0);
  }, 300_000);

  it('refuses to build against a library whose text is not the one its rescale was written for', async () => {
    const source = join(dir, 'src');
    await cp(GO_CLIENT_DIR, source, { recursive: true });
    const file = join(source, 'cmd', 'river-native', 'rescale.json');
    const rescale = JSON.parse(await readFile(file, 'utf8')) as { edits: { from: string }[] };
    rescale.edits[0]!.from = '\tJobRescuerIntervalDefault    = 31 * time.Second\n';
    await writeFile(file, JSON.stringify(rescale));
    await expect(rescaleLibrary('go', 'river-native', source)).rejects.toThrow(
      /internal\/maintenance\/job_rescuer.go holds the text that .*rescale.json rescales 0 times, not once: this is not the version of github.com\/riverqueue\/river/,
    );
  }, 300_000);

  it('builds a program once and finds it again by the hash of its sources', async () => {
    const first = await ensureGoProgram('river-native');
    const built = (await stat(first)).mtimeMs;
    // Found again, not built again.
    expect(await ensureGoProgram('river-native')).toBe(first);
    expect((await stat(first)).mtimeMs).toBe(built);
    const run = spawnSync(first, ['--print-sql'], { encoding: 'utf8' });
    expect(JSON.parse(run.stdout)).toMatchObject({ version: 'v0.51.2', kind: 'leaseproof' });
  }, 600_000);
});
