import { ensureGoProgram } from '../../env/go-install.js';
import type { NativeProgram } from '../../queue/types.js';
import { askedOnce, programJson } from './program-json.js';

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
  return askedOnce(async () => {
    const program = await goNativeProgram(name);
    return programJson<T>(`${name} ${args.join(' ')}`, [...program.command, ...args]);
  });
}
