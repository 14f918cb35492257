#!/usr/bin/env node
// The installed command runs the compiled CLI; `npm ci` builds it (the `prepare` script).
// tsx, for a user's TypeScript adapter, is registered by the CLI before a verb's action runs
// (src/cli/bin.ts): `--help` and `--version` start without it.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/bin.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('leaseproof: dist/ is missing; run `npm run build` (npm ci does it too)\n');
  process.exit(2);
}
await import(entry.href);
