import { spawn } from 'node:child_process';
import { ensureGoProgram } from '../../env/go-install.js';
import { AdapterError } from '../../queue/adapter-error.js';
import type { NativeProgram } from '../../queue/types.js';

/**
 * A native worker program written in Go with leaseproof's client: `clients/go/cmd/<name>`,
 * built on first need into `.tools/go` (see `ensureGoProgram`). Its wall clock is skewed by the
 * offset file its build reads (`clock: 'offset-file'`), not by libfaketime, which Go bypasses.
 */
export async function goNativeProgram(name: string): Promise<NativeProgram> {
  const program = await ensureGoProgram(name, {
    log: (line) => process.stderr.write(`${line}\n`),
  });
  return { command: [program], clock: 'offset-file' };
}

/**
 * Runs a Go worker program with `args` to its end and returns its stdout parsed as JSON: how
 * the controller asks a Go library for the statements it installs with. Asked once per process
 * and kept; a failure is an `AdapterError` quoting the program's stderr, and is not kept.
 */
export function goProgramJson<T>(name: string, args: readonly string[]): () => Promise<T> {
  let answer: Promise<T> | undefined;
  return () => {
    answer ??= ask<T>(name, args).catch((error: unknown) => {
      answer = undefined;
      throw error;
    });
    return answer;
  };
}

async function ask<T>(name: string, args: readonly string[]): Promise<T> {
  const [file] = (await goNativeProgram(name)).command;
  return new Promise<T>((resolve, reject) => {
    const child = spawn(file!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const said = `${name} ${args.join(' ')}`;
      if (code !== 0) {
        const stderr = Buffer.concat(err).toString().trim().split('\n').slice(-8).join('\n');
        reject(new AdapterError(`${said} failed (exit ${String(code)}):\n${stderr}`));
        return;
      }
      try {
        resolve(JSON.parse(Buffer.concat(out).toString()) as T);
      } catch (error) {
        reject(new AdapterError(`${said} did not print JSON: ${String(error)}`));
      }
    });
  });
}
