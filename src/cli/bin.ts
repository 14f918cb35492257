/** Process entry of the CLI (`bin/leaseproof.js` loads the compiled form of this file). */
import { main } from './main.js';

// A reader that stops reading (`leaseproof list | head`) closes the pipe: what is left to print
// has nobody to read it, which is not an error of leaseproof's — without this, Node ends the
// process with an EPIPE stack trace. Any run under way still stops through its own shutdown.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

/**
 * A user's queue adapter may be TypeScript (`--queue ./my-queue.ts`): tsx's hooks let it load as
 * it is. Both of them: in a CommonJS project (`npm init -y` sets no "type") a `.ts` file is
 * CommonJS, and with the ESM hook alone Node 20.19+ fails it as "Cannot require() ES Module … in
 * a cycle", hiding the adapter's own errors behind that message.
 *
 * Registered before a verb's action, not at start: tsx costs about 0.2 s of CPU to load
 * (`node --import tsx -e 0` 0.29–0.34 s against 0.08–0.11 s for `node -e 0`), which `--help`
 * and `--version` have no use for. From source (`node --import tsx src/cli/bin.ts`) tsx is
 * already there.
 */
async function registerTypeScript(): Promise<void> {
  if (import.meta.url.endsWith('.ts')) return;
  const [esm, cjs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
  esm.register();
  cjs.register();
}

await main(process.argv, { beforeAction: registerTypeScript });
