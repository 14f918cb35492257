/**
 * How to start a worker process: the compiled entry when leaseproof runs from `dist/`, the
 * TypeScript entry when it runs from source (tests, `npm run bench`). tsx is registered in every
 * worker, because a user's adapter may be a `.ts` file (`--queue ./my-queue.ts`).
 */
export function workerEntry(): { file: string; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  const file = new URL(`../worker/worker-main.${fromSource ? 'ts' : 'js'}`, import.meta.url);
  return { file: file.pathname, execArgv: ['--import', import.meta.resolve('tsx')] };
}
