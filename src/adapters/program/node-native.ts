import type { NativeProgram } from '../../queue/types.js';

/**
 * A native worker program in Node.js: `src/native/native-main` with a built-in target's name
 * (`pg-boss`, `graphile-worker`), the library's own loop in a process of its own. Compiled
 * JavaScript from `dist/`; from source (tests, benches) through tsx. Its clock is skewed by
 * libfaketime, which reaches Node's `Date` (through libc's clock_gettime) and, told so, leaves
 * its monotonic clock alone.
 */
export function nodeNativeProgram(target: string): Promise<NativeProgram> {
  const fromSource = import.meta.url.endsWith('.ts');
  const file = new URL(`../../native/native-main.${fromSource ? 'ts' : 'js'}`, import.meta.url);
  const loader = fromSource ? ['--import', import.meta.resolve('tsx')] : [];
  return Promise.resolve({ command: [process.execPath, ...loader, file.pathname, target] });
}
