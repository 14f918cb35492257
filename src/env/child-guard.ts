/**
 * Last line of defence for child processes: whatever path ends this process (an uncaught
 * exception, `process.exit` from a signal handler of some library, the test runner tearing a
 * fork down), the 'exit' event still runs, and synchronous `kill` still works there. Servers are
 * stopped gracefully elsewhere; this only catches what graceful stopping did not reach.
 */
const guarded = new Map<number, NodeJS.Signals>();
let installed = false;

function killAllSync(): void {
  for (const [pid, signal] of guarded) {
    try {
      // A SIGSTOPped process ignores SIGTERM until it is continued; SIGCONT first so that a
      // graceful signal is not left pending on a frozen worker.
      process.kill(pid, 'SIGCONT');
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
  guarded.clear();
}

/** Kills `pid` with `signal` when this process exits, unless `unguardChild` was called first. */
export function guardChild(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (!installed) {
    installed = true;
    process.on('exit', killAllSync);
  }
  guarded.set(pid, signal);
}

/** Stops guarding `pid` (it was stopped gracefully). */
export function unguardChild(pid: number): void {
  guarded.delete(pid);
}
