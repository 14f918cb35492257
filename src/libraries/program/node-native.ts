import type { NativeProgram } from '../../queue/types.js';

/** Where a Node.js native program runs: which Node, and what it adds to the environment. */
export interface NodeProgramOptions {
  /** The Node executable (default: this process's own). */
  node?: string;
  /** Environment added to leaseproof's own. */
  env?: Record<string, string>;
}

/**
 * A native worker program in Node.js: `src/native/native-main` with a built-in target's name
 * (`pg-boss`, `graphile-worker`), the library's own loop in a process of its own. Compiled
 * JavaScript from `dist/`; from source (tests, benches) through tsx. Its clock is skewed by
 * libfaketime, which reaches Node's `Date` (through libc's clock_gettime) and, told so, leaves
 * its monotonic clock alone. A library that needs a newer Node than leaseproof's runs under the
 * Node named in `options` (pg-boss 12, under Node 22).
 */
export function nodeNativeProgram(
  target: string,
  options: NodeProgramOptions = {},
): Promise<NativeProgram> {
  return Promise.resolve({
    command: nodeProgramCommand('native/native-main', [target], options.node),
    ...(options.env !== undefined && { env: options.env }),
  });
}

/** The command that runs leaseproof's module `module` (e.g. `native/native-main`) under `node`. */
export function nodeProgramCommand(
  module: string,
  args: readonly string[],
  node: string = process.execPath,
): string[] {
  const fromSource = import.meta.url.endsWith('.ts');
  const file = new URL(`../../${module}.${fromSource ? 'ts' : 'js'}`, import.meta.url);
  const loader = fromSource ? ['--import', import.meta.resolve('tsx')] : [];
  return [node, ...loader, file.pathname, ...args];
}
