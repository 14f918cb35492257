import { ensurePythonEnvironment, PYTHON_CLIENT_DIR } from '../../env/python-install.js';
import type { NativeProgram } from '../../queue/types.js';
import { askedOnce, programJson } from './program-json.js';

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
  return programJson<T>(
    `python -m ${module} ${args.join(' ')}`,
    [...program.command, ...args],
    program.env,
  );
}

/**
 * `pythonModuleJson(module, ['--print-sql'])`, asked once per process and kept: how a native
 * adapter gets its library's own statements. A failure is not kept (the next call asks again).
 */
export function librarySql<T>(module: string): () => Promise<T> {
  return askedOnce(() => pythonModuleJson<T>(module, ['--print-sql']));
}
