// Creating a run's proxy survives Toxiproxy's API failing to answer once (a loaded runner lost a
// run's verdict to one "fetch failed"); an answer, or no answer three times, is final and says so.
import { describe, expect, it } from 'vitest';
import { CREATE_ATTEMPTS, ToxiproxyDatabaseProxy } from '../../src/env/database-proxy.js';

/** A Toxiproxy client whose createProxy fails as `failures` says, then answers. */
function toxiproxy(failures: Error[]) {
  const client = {
    host: 'http://127.0.0.1:8474',
    created: 0,
    removed: 0,
    getAll() {
      const remove = () => Promise.resolve(void (client.removed += 1));
      return Promise.resolve(client.created > 0 ? { p: { remove } } : {});
    },
    createProxy() {
      const failure = failures.shift();
      client.created += 1;
      if (failure !== undefined) return Promise.reject(failure);
      return Promise.resolve({ listen: '127.0.0.1:41000' });
    },
  };
  return client;
}

function fetchFailed(code: string): TypeError {
  const socket = Object.assign(new Error('other side closed'), { code });
  return new TypeError('fetch failed', { cause: socket });
}

const options = (client: ReturnType<typeof toxiproxy>) => ({
  toxiproxy: client as never,
  name: 'p',
  upstream: '127.0.0.1:5432',
  placement: { listen: '127.0.0.1:0', reach: (l: { host: string; port: number }) => l },
  credentialsUrl: 'postgres://u:p@127.0.0.1:5432/db',
});

describe('ToxiproxyDatabaseProxy.create', () => {
  it('tries again when the API did not answer, removing what the failed try may have made', async () => {
    const client = toxiproxy([fetchFailed('UND_ERR_SOCKET')]);
    const proxy = await ToxiproxyDatabaseProxy.create(options(client));
    expect(proxy.port).toBe(41000);
    expect(client.created).toBe(2);
    expect(client.removed).toBe(1);
  });

  it(`gives up after ${CREATE_ATTEMPTS} unanswered tries, naming the root cause`, async () => {
    const client = toxiproxy(Array.from({ length: 5 }, () => fetchFailed('ECONNRESET')));
    const error = await ToxiproxyDatabaseProxy.create(options(client)).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /could not create Toxiproxy proxy "p" .*\(3 tries\): ECONNRESET: other side closed$/,
    );
    expect(client.created).toBe(CREATE_ATTEMPTS);
  });

  it('does not retry an answer', async () => {
    const answer = Object.assign(new Error('Request failed with status code 409'), {
      response: { status: 409, data: { error: 'proxy already exists' } },
    });
    const client = toxiproxy([answer]);
    const error = await ToxiproxyDatabaseProxy.create(options(client)).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/status code 409$/);
    expect(client.created).toBe(1);
  });
});
