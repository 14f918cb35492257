import { builtInQueue } from '../libraries/registry.js';

/**
 * How to start a worker process: the compiled entry when leaseproof runs from `dist/`, the
 * TypeScript entry when it runs from source (tests, `npm run bench`).
 *
 * tsx is registered only where something TypeScript may be loaded: from source, or for a user's
 * adapter file (`--queue ./my-queue.ts`; a `.js` one may import TypeScript too). A built-in queue
 * from `dist/` is plain JavaScript. Registered in every worker, it cost each one about
 * 0.2 s of CPU before its first line (`node --import tsx -e 0`: 0.29–0.34 s against 0.08–0.11 s
 * for `node -e 0`) and put every later import through its loader — a few hundred workers in one
 * suite, all starting beside runs whose heartbeats the admission gate guards.
 */
export function workerEntry(queue: string): { file: string; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  const file = new URL(`../worker/worker-main.${fromSource ? 'ts' : 'js'}`, import.meta.url);
  const typescript = fromSource || builtInQueue(queue) === undefined;
  return {
    file: file.pathname,
    execArgv: typescript ? ['--import', import.meta.resolve('tsx')] : [],
  };
}
