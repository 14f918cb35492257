#!/usr/bin/env node
// The installed command runs the compiled CLI; `npm ci` builds it (the `prepare` script).
import { existsSync } from 'node:fs';
import { register as registerEsm } from 'tsx/esm/api';
import { register as registerCjs } from 'tsx/cjs/api';

const entry = new URL('../dist/cli/bin.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('leaseproof: dist/ is missing; run `npm run build` (npm ci does it too)\n');
  process.exit(2);
}
// A user's queue adapter may be TypeScript (`--queue ./my-queue.ts`): load it as it is. Both
// hooks: in a CommonJS project (`npm init -y` sets no "type") a `.ts` file is CommonJS, and with
// the ESM hook alone Node 20.19+ fails it as "Cannot require() ES Module … in a cycle", hiding
// the adapter's own errors behind that message.
registerEsm();
registerCjs();
await import(entry.href);
