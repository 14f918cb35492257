import { createServer } from 'node:net';

/**
 * Asks the kernel for a free TCP port on `host`. The port is free when this returns; another
 * process could take it before the caller binds it, so callers that can (Toxiproxy proxies)
 * bind port 0 instead and read back the port they got.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
