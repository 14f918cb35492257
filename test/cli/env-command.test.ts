import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../../src/env/process-registry.js';
import { descendantsOf, waitGone } from '../support/processes.js';
import { finished, firstJsonLine, spawnCli } from '../support/run-node.js';

// Each test gets a state folder of its own, as separate checkouts would.
const freshState = async (): Promise<NodeJS.ProcessEnv> => ({
  LEASEPROOF_STATE_DIR: await mkdtemp(join(tmpdir(), 'leaseproof-cli-state-')),
  DATABASE_URL: '',
  TOXIPROXY_URL: '',
  LEASEPROOF_ENV: '',
});

interface UpReport {
  pid: number;
  runId: string;
  adminUrl: string;
}

/** Starts `env up --json`, returns its report and the server processes it started. */
async function envUp(env: NodeJS.ProcessEnv) {
  const child = spawnCli(['env', 'up', '--json'], env);
  const done = finished(child);
  const report = await firstJsonLine<UpReport>(child);
  const servers = descendantsOf(report.pid).filter((p) => /postgres|toxiproxy/.test(p.command));
  return { child, done, report, servers };
}

describe('leaseproof env', () => {
  it('up --check starts both servers, proves a query goes through a proxy, and stops them', async () => {
    const env = await freshState();
    const child = spawnCli(['env', 'up', '--check'], env);
    const result = await finished(child);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/ok {3}query through the proxy/);
    expect(result.stderr).toMatch(/ok {3}disabled proxy refuses connections: refused/);
    expect(result.stderr).toContain('environment check passed');
    expect(result.stderr).not.toMatch(/postgres:\/\/postgres:[0-9a-f]{10,}@/);
    expect(descendantsOf(child.pid ?? 0)).toEqual([]);
  });

  it('up keeps the servers until SIGINT, then stops them all and exits 130', async () => {
    const env = await freshState();
    const { child, done, report, servers } = await envUp(env);
    expect(report.adminUrl).toContain(':***@');
    expect(servers.map((p) => p.command).join('\n')).toMatch(/toxiproxy-server/);
    expect(servers.map((p) => p.command).join('\n')).toMatch(/postgres -D/);

    const status = await finished(spawnCli(['env', 'status', '--json'], env));
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, pid: report.pid });

    child.kill('SIGINT');
    const result = await done;
    expect(result.code).toBe(130);
    await waitGone(servers.map((p) => p.pid));
    expect(existsSync(join(env.LEASEPROOF_STATE_DIR ?? '', 'env.json'))).toBe(false);
    const after = await finished(spawnCli(['env', 'status'], env));
    expect(after.code).toBe(1);
  });

  it('env down stops a running env up', async () => {
    const env = await freshState();
    const { done, servers } = await envUp(env);
    const down = await finished(spawnCli(['env', 'down'], env));
    expect(down.code).toBe(0);
    expect(down.stderr).toContain('stopping environment');
    expect((await done).code).toBe(143);
    await waitGone(servers.map((p) => p.pid));
  });

  it('after a SIGKILL of env up, the next leaseproof command stops the orphaned servers', async () => {
    const env = await freshState();
    const { child, done, servers } = await envUp(env);
    child.kill('SIGKILL');
    await done;
    // SIGKILL gives the controller no chance: its servers live on as orphans…
    expect(servers.length).toBeGreaterThanOrEqual(2);
    expect(servers.filter((p) => isAlive(p.pid)).length).toBe(servers.length);
    // …until any later command, here `env status`, finds them in .leaseproof/ and stops them.
    const status = await finished(spawnCli(['env', 'status'], env));
    expect(status.stderr).toMatch(/stopped leftover postgres/);
    expect(status.stderr).toMatch(/stopped leftover toxiproxy/);
    await waitGone(servers.map((p) => p.pid));
  });

  it('a malformed DATABASE_URL gives one clear error, exit 2, no stack trace', async () => {
    const env = {
      ...(await freshState()),
      DATABASE_URL: 'postgres://me:hunter2@',
      TOXIPROXY_URL: 'http://127.0.0.1:1',
    };
    const result = await finished(spawnCli(['env', 'up', '--check'], env));
    expect(result.code).toBe(2);
    const errors = result.stderr.split('\n').filter((line) => line.startsWith('leaseproof:'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^leaseproof: DATABASE_URL .*expected postgres:\/\//);
    expect(result.stderr).not.toContain('hunter2');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('an unreachable TOXIPROXY_URL gives one clear error naming it', async () => {
    const state = await freshState();
    // A real PostgreSQL, so that only Toxiproxy is wrong.
    const { child, done, report } = await envUp(state);
    try {
      const status = await finished(spawnCli(['env', 'status', '--json', '--show-secrets'], state));
      const adminUrl = (JSON.parse(status.stdout) as { adminUrl: string }).adminUrl;
      const result = await finished(
        spawnCli(['env', 'up', '--check', '--env', 'external'], {
          ...(await freshState()),
          DATABASE_URL: adminUrl,
          TOXIPROXY_URL: 'http://127.0.0.1:9',
        }),
      );
      expect(result.code).toBe(2);
      const errors = result.stderr.split('\n').filter((line) => line.startsWith('leaseproof:'));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(
        /^leaseproof: TOXIPROXY_URL=http:\/\/127\.0\.0\.1:9 does not answer/,
      );
      expect(result.stderr).not.toContain(new URL(adminUrl).password);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(report.pid).toBeGreaterThan(0);
    } finally {
      child.kill('SIGINT');
      await done;
    }
  });
});
