import { spawn } from 'node:child_process';
import { AdapterError } from '../../queue/adapter-error.js';

/**
 * Runs `command` to its end and returns its stdout parsed as JSON: how the controller asks a
 * library in another language for the statements it installs and enqueues with. A failure is
 * an `AdapterError` that says `label` and quotes the program's stderr.
 */
export async function programJson<T>(
  label: string,
  command: readonly string[],
  env: Record<string, string> = {},
): Promise<T> {
  const [file, ...args] = command;
  if (file === undefined) throw new AdapterError(`${label}: no command`);
  return new Promise<T>((resolve, reject) => {
    const child = spawn(file, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) {
        const stderr = Buffer.concat(err).toString().trim().split('\n').slice(-8).join('\n');
        reject(new AdapterError(`${label} failed (exit ${String(code)}):\n${stderr}`));
        return;
      }
      try {
        resolve(JSON.parse(Buffer.concat(out).toString()) as T);
      } catch (error) {
        reject(new AdapterError(`${label} did not print JSON: ${String(error)}`));
      }
    });
  });
}

/**
 * `ask()`, asked once per process and kept; a failure is not kept (the next call asks again).
 */
export function askedOnce<T>(ask: () => Promise<T>): () => Promise<T> {
  let answer: Promise<T> | undefined;
  return () => {
    answer ??= ask().catch((error: unknown) => {
      answer = undefined;
      throw error;
    });
    return answer;
  };
}
