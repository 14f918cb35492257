import { chmod, mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ensureToxiproxyServer,
  findToxiproxyServer,
  TOXIPROXY_VERSION,
} from '../../src/env/toxiproxy-install.js';
import { EnvironmentError } from '../../src/errors.js';
import { ROOT } from '../support/run-node.js';

const emptyDir = (): Promise<string> => mkdtemp(join(tmpdir(), 'leaseproof-install-'));

describe('the Toxiproxy install', () => {
  it('is instant once the binary is in .tools/bin, and reports the pinned version', async () => {
    const started = performance.now();
    const binary = await ensureToxiproxyServer({ projectRoot: ROOT, path: '' });
    expect(binary.path).toMatch(/toxiproxy-server$/);
    expect(performance.now() - started).toBeLessThan(1_000);
    const { execFileSync } = await import('node:child_process');
    expect(execFileSync(binary.path, ['-version']).toString()).toContain(
      TOXIPROXY_VERSION.replace(/^v/, ''),
    );
  });

  it('prefers a toxiproxy-server on PATH', async () => {
    const dir = await emptyDir();
    await writeFile(join(dir, 'toxiproxy-server'), '#!/bin/sh\n');
    await chmod(join(dir, 'toxiproxy-server'), 0o755);
    const found = await findToxiproxyServer({ projectRoot: await emptyDir(), path: dir });
    expect(found).toEqual({ path: join(dir, 'toxiproxy-server'), source: 'path' });
  });

  it('says what to do when there is neither a binary nor Go', async () => {
    const root = await emptyDir();
    await mkdir(join(root, '.tools'), { recursive: true });
    const error: unknown = await ensureToxiproxyServer({
      projectRoot: root,
      path: '',
      goBinary: join(root, 'no-go-here'),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnvironmentError);
    const message = (error as Error).message;
    expect(message).toMatch(/Go is not available/);
    expect(message).toMatch(/npm run toxiproxy:install/);
    expect(message).toMatch(/docker compose up -d/);
    expect(message).toMatch(/--env containers/);
  });
});
