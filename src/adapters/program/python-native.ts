import { spawn } from 'node:child_process';
import { ensurePythonEnvironment, PYTHON_CLIENT_DIR } from '../../env/python-install.js';
import { AdapterError } from '../../queue/adapter-error.js';
import type { NativeProgram, QueueAdapter } from '../../queue/types.js';
import { findLibfaketime, NO_LIBFAKETIME } from './program-clock.js';

/**
 * A native worker program written in Python with leaseproof's client: `python -m <module>` in
 * leaseproof's own virtual environment (`.tools/python`, made on first need), the client on
 * its path. Built-in targets are modules of `leaseproof_client.targets`.
 */
export async function pythonNativeProgram(module: string): Promise<NativeProgram> {
  const python = await ensurePythonEnvironment({
    log: (line) => process.stderr.write(`${line}\n`),
  });
  const path = [PYTHON_CLIENT_DIR, process.env.PYTHONPATH].filter(Boolean).join(':');
  return {
    command: [python, '-m', module],
    env: { PYTHONPATH: path, PYTHONUNBUFFERED: '1' },
  };
}

/**
 * Runs `python -m <module> <args>` to its end and returns its stdout parsed as JSON: how the
 * controller asks a Python library for the statements it installs and enqueues with. A failure
 * is an `AdapterError` quoting the program's stderr.
 */
export async function pythonModuleJson<T>(module: string, args: readonly string[]): Promise<T> {
  const program = await pythonNativeProgram(module);
  const [file, ...rest] = program.command;
  return new Promise<T>((resolve, reject) => {
    const child = spawn(file!, [...rest, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...program.env },
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const stderr = Buffer.concat(err).toString().trim().split('\n').slice(-8).join('\n');
      if (code !== 0) {
        reject(
          new AdapterError(
            `python -m ${module} ${args.join(' ')} failed (exit ${String(code)}):\n${stderr}`,
          ),
        );
        return;
      }
      try {
        resolve(JSON.parse(Buffer.concat(out).toString()) as T);
      } catch (error) {
        reject(
          new AdapterError(
            `python -m ${module} ${args.join(' ')} did not print JSON: ${String(error)}`,
          ),
        );
      }
    });
  });
}

/**
 * `pythonModuleJson(module, ['--print-sql'])`, asked once per process and kept: how a native
 * adapter gets its library's own statements. A failure is not kept (the next call asks again).
 */
export function librarySql<T>(module: string): () => Promise<T> {
  let sql: Promise<T> | undefined;
  return () => {
    sql ??= pythonModuleJson<T>(module, ['--print-sql']).catch((error: unknown) => {
      sql = undefined;
      throw error;
    });
    return sql;
  };
}

/**
 * The `limits` of an adapter whose code runs in a worker program: its clock can be skewed only
 * through libfaketime, so without it runs that skew a clock cannot be valid.
 */
export function programClockLimits(): QueueAdapter['limits'] {
  return findLibfaketime() === undefined ? { clockSkew: false, reason: NO_LIBFAKETIME } : undefined;
}
