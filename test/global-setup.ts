import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureToxiproxyServer } from '../src/env/toxiproxy-install.js';

/**
 * `npm test` provisions what it needs: the pinned toxiproxy-server (built once into
 * .tools/bin), and a state folder of its own so that the tests' leftover records never mix with
 * a developer's `leaseproof env up`.
 */
export default async function setup(): Promise<void> {
  await ensureToxiproxyServer({ log: (line) => console.log(`[global-setup] ${line}`) });
  process.env.LEASEPROOF_STATE_DIR ??= await mkdtemp(join(tmpdir(), 'leaseproof-test-state-'));
}
