#!/usr/bin/env node
// The installed command runs the compiled CLI; `npm ci` builds it (the `prepare` script).
import { existsSync } from 'node:fs';
import { register } from 'tsx/esm/api';

const entry = new URL('../dist/cli/bin.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('leaseproof: dist/ is missing; run `npm run build` (npm ci does it too)\n');
  process.exit(2);
}
// A user's queue adapter may be TypeScript (`--queue ./my-queue.ts`): load it as it is.
register();
await import(entry.href);
