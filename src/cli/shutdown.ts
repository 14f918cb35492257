/**
 * Orderly shutdown on SIGINT and SIGTERM: every registered stopper runs (servers, proxies,
 * workers), then the process exits 130 or 143 as a shell expects. A second Ctrl-C while
 * stopping exits at once; the child guard still kills what is left.
 */
const stoppers = new Set<() => Promise<void>>();
let installed = false;
let stopping = false;

/** Registers `stop` to run on SIGINT/SIGTERM; returns a function that unregisters it. */
export function onShutdown(stop: () => Promise<void>): () => void {
  install();
  stoppers.add(stop);
  return () => stoppers.delete(stop);
}

function install(): void {
  if (installed) return;
  installed = true;
  const handle = (signal: NodeJS.Signals, code: number): void => {
    if (stopping) {
      process.stderr.write(`\nleaseproof: ${signal} again, exiting now\n`);
      process.exit(code);
    }
    stopping = true;
    process.stderr.write(`\nleaseproof: ${signal}, stopping everything it started…\n`);
    void Promise.allSettled([...stoppers].map((stop) => stop())).then(() => process.exit(code));
  };
  process.on('SIGINT', () => handle('SIGINT', 130));
  process.on('SIGTERM', () => handle('SIGTERM', 143));
}
