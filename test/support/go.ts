import { spawnSync } from 'node:child_process';

/** Whether the Go toolchain is here (the Go worker tests skip, saying so, when not). */
export const haveGo =
  spawnSync(process.env.LEASEPROOF_GO ?? 'go', ['version'], { stdio: 'ignore' }).status === 0;

/** The title suffix of a test that needs Go. */
export const goSkipReason = haveGo
  ? ''
  : ' (skipped: no Go toolchain here; install Go 1.26+ from https://go.dev/dl or set LEASEPROOF_GO)';
