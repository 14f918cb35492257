// The readiness line of the postmaster is found wherever the log's chunks cut it: a restart under
// load logs more right behind it, in the same chunk, and that once hid it (a 60 s start-up timeout
// in the demo's database-restart scenario). A stand-in for `postgres` prints the log as a test
// needs it; the real server's start and restart are covered by the embedded-lifecycle and
// db-restart tests.
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PostmasterProcess } from '../../src/env/postmaster-process.js';

const READY = 'LOG:  database system is ready to accept connections';

async function fakePostgres(script: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'leaseproof-fake-postgres-'));
  await chmod(dir, 0o755);
  const file = join(dir, 'postgres');
  await writeFile(file, `#!/bin/sh\n${script}\n`);
  await chmod(file, 0o755);
  return file;
}

async function startWith(script: string): Promise<PostmasterProcess> {
  return PostmasterProcess.start({
    binary: await fakePostgres(script),
    dataDir: '/nonexistent',
    port: 1,
    flags: [],
    onLog: () => undefined,
  });
}

describe('PostmasterProcess readiness', () => {
  it('sees the ready line with a long stretch of log behind it in the same chunk', async () => {
    const after = 'LOG:  connection received: host=127.0.0.1 port=40000\\n'.repeat(20);
    const server = await startWith(`printf '${READY}\\n${after}' >&2; exec sleep 30`);
    expect(server.running).toBe(true);
    await server.stop('SIGTERM');
    expect(server.running).toBe(false);
  });

  it('sees the ready line cut in two by a chunk boundary', async () => {
    const server = await startWith(
      `printf 'LOG:  database system is ready' >&2; sleep 0.2; printf ' to accept connections\\n' >&2; exec sleep 30`,
    );
    await server.stop('SIGTERM');
  });

  it('rejects when the server exits before it is ready', async () => {
    await expect(startWith(`echo 'FATAL:  could not bind' >&2; exit 1`)).rejects.toThrow(
      /exited during start-up \(code 1/,
    );
  });
});
