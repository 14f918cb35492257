// An admin connection whose start-up times out is tried again with more time (a loaded runner
// lost two verdicts to "cannot connect to PostgreSQL … timeout expired"); a refusal is the
// server's answer and is not. A socket that accepts and never answers stands in for a server
// too starved to start a backend: the timeout is node-postgres' own, on a real socket.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { withAdminClient } from '../../src/env/run-databases.js';
import { EnvironmentError } from '../../src/errors.js';

let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A TCP server that accepts and never answers; resolves to its port and its accept count. */
async function silentServer(): Promise<{ port: number; accepted: () => number }> {
  let accepted = 0;
  server = createServer((socket) => {
    accepted += 1;
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, accepted: () => accepted };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EnvironmentError);
  return error as Error;
}

describe('withAdminClient', () => {
  it('tries once per timeout when the server never answers, and says how long it waited', async () => {
    const { port, accepted } = await silentServer();
    const url = `postgres://postgres:pw@127.0.0.1:${port}/postgres`;
    const error = await failure(withAdminClient(url, () => Promise.resolve(1), [150, 150, 200]));
    expect(accepted()).toBe(3);
    expect(error.message).toBe(
      `cannot connect to PostgreSQL at 127.0.0.1:${port} as "postgres" (3 tries timed out, 0.5 s in all)`,
    );
    expect((error.cause as Error).message).toMatch(/timeout expired/);
  });

  it('does not try again when the server refuses: that is an answer', async () => {
    const port = await closedPort();
    const url = `postgres://postgres:pw@127.0.0.1:${port}/postgres`;
    const started = performance.now();
    const error = await failure(withAdminClient(url, () => Promise.resolve(1), [5_000, 5_000]));
    expect(error.message).toBe(`cannot connect to PostgreSQL at 127.0.0.1:${port} as "postgres"`);
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
