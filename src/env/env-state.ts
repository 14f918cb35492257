import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EnvironmentDescription } from './types.js';
import { stateDir } from './state-dir.js';
import { isAlive } from './process-registry.js';

/** What `leaseproof env up` leaves in `.leaseproof/env.json` for `env status` and `env down`. */
export interface EnvState {
  /** The pid of the `env up` process that owns the servers. */
  pid: number;
  /** When it started (ISO). */
  startedAt: string;
  /** The environment, with redacted URLs. */
  description: EnvironmentDescription;
  /** The unredacted admin URL; the file is written with mode 0600, like a .pgpass. */
  adminUrl: string;
}

function stateFile(): string {
  return join(stateDir(), 'env.json');
}

/** Writes the state of a running `env up`. */
export async function writeEnvState(state: EnvState): Promise<void> {
  await mkdir(stateDir(), { recursive: true });
  await writeFile(stateFile(), JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
}

/** Reads it; `running` says whether its owner still lives. */
export async function readEnvState(): Promise<{ state: EnvState; running: boolean } | undefined> {
  const text = await readFile(stateFile(), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const state = JSON.parse(text) as EnvState;
    return { state, running: isAlive(state.pid) };
  } catch {
    return undefined;
  }
}

/** Removes it. */
export async function clearEnvState(): Promise<void> {
  await rm(stateFile(), { force: true });
}
