import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureNode22 } from '../../src/env/node22-install.js';
import { ensureNpmTools } from '../../src/env/npm-tools-install.js';
import { EnvironmentError } from '../../src/errors.js';

// A stand-in for npm: records its arguments and makes node_modules/<name> under --prefix, so the
// install's staging, stamp and refusals are tested without a registry.
let dir: string;
let npm: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'leaseproof-npm-tools-'));
  npm = join(dir, 'fake-npm');
  await writeFile(
    npm,
    `#!/bin/sh
echo "$@" >> "${join(dir, 'calls.log')}"
prefix=""; last=""
while [ $# -gt 0 ]; do
  if [ "$1" = "--prefix" ]; then prefix="$2"; shift; fi
  last="$1"; shift
done
case "$last" in fail@*) echo "npm error 404 Not Found - $last" >&2; exit 1;; esac
mkdir -p "$prefix/node_modules/\${last%@*}"
`,
  );
  await chmod(npm, 0o755);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const calls = async () =>
  (await readFile(join(dir, 'calls.log'), 'utf8').catch(() => '')).trim().split('\n');

describe('npm packages installed into a folder of .tools', () => {
  it('installs once, without install scripts or a lock file, and is a no-op after', async () => {
    const root = join(dir, 'project');
    const lines: string[] = [];
    const folder = await ensureNpmTools(join('.tools', 'npm', 'lib@1.2.3'), ['lib@1.2.3'], {
      projectRoot: root,
      npm,
      log: (line) => lines.push(line),
    });
    expect(folder).toBe(join(root, '.tools', 'npm', 'lib@1.2.3'));
    expect((await stat(join(folder, 'node_modules', 'lib'))).isDirectory()).toBe(true);
    expect(lines[0]).toBe(`installing lib@1.2.3 from the npm registry into ${folder}`);
    const [call] = await calls();
    expect(call).toContain('--ignore-scripts');
    expect(call).toContain('--no-package-lock');
    expect(call).toMatch(/--prefix \S+\.stage-\d+ /);
    // Made: the second call finds the stamp and runs nothing.
    await ensureNpmTools(join('.tools', 'npm', 'lib@1.2.3'), ['lib@1.2.3'], {
      projectRoot: root,
      npm,
    });
    expect(await calls()).toHaveLength(1);
  });

  it("a failed install leaves nothing behind and quotes npm's error", async () => {
    const root = join(dir, 'failing');
    const error = await ensureNpmTools('tools', ['fail@9'], { projectRoot: root, npm }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as Error).message).toContain('npm error 404 Not Found - fail@9');
    await expect(stat(join(root, 'tools'))).rejects.toThrow();
  });

  it('without npm, says how to name one', async () => {
    const error = await ensureNpmTools('tools', ['lib@1'], {
      projectRoot: join(dir, 'no-npm'),
      npm: join(dir, 'no-such-npm'),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as Error).message).toMatch(/needs npm.*LEASEPROOF_NPM/);
  });
});

describe('Node 22 for worker programs', () => {
  it('LEASEPROOF_NODE22 names one; a wrong one is an error naming it', async () => {
    const saved = process.env.LEASEPROOF_NODE22;
    try {
      process.env.LEASEPROOF_NODE22 = process.execPath;
      expect(await ensureNode22()).toBe(process.execPath);
      process.env.LEASEPROOF_NODE22 = join(dir, 'no-such-node');
      await expect(ensureNode22()).rejects.toThrow(/LEASEPROOF_NODE22=.*is not an executable file/);
    } finally {
      if (saved === undefined) delete process.env.LEASEPROOF_NODE22;
      else process.env.LEASEPROOF_NODE22 = saved;
    }
  });
});
