import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** How to start a process: `group` makes it a process group leader, as a shell's job is. */
export interface SpawnOptions {
  group?: boolean;
  /** Working directory (default: the repository root), e.g. an empty project's. */
  cwd?: string;
}

// tsx by its path: `--import tsx` resolves from the working directory, which may be elsewhere.
const TSX = pathToFileURL(createRequire(`${ROOT}package.json`).resolve('tsx')).href;

/** Starts a TypeScript file of this repository as a real Node process (through tsx). */
export function spawnTs(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: SpawnOptions = {},
): ChildProcess {
  return spawn(process.execPath, ['--import', TSX, resolve(ROOT, file), ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.group ?? false,
  });
}

/** Starts the CLI from source: `leaseproof <args>`. */
export function spawnCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: SpawnOptions = {},
): ChildProcess {
  return spawnTs('src/cli/bin.ts', args, env, options);
}

/** What a finished process said and how it ended. */
export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Collects output and waits for exit. */
export function finished(child: ChildProcess): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Resolves with the first stdout line that parses as JSON. */
export function firstJsonLine<T>(child: ChildProcess, timeoutMs = 60_000): Promise<T> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let stderr = '';
    const timer = setTimeout(
      () => reject(new Error(`no JSON line within ${timeoutMs}ms; stderr: ${stderr}`)),
      timeoutMs,
    );
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (const line of buffer.split('\n').slice(0, -1)) {
        try {
          const value = JSON.parse(line) as T;
          clearTimeout(timer);
          resolve(value);
          return;
        } catch {
          // Not JSON; keep reading.
        }
      }
    });
    child.on('close', () => reject(new Error(`exited before printing JSON; stderr: ${stderr}`)));
  });
}
