/**
 * Orderly shutdown on SIGINT and SIGTERM: every registered stopper runs (servers, proxies,
 * workers), then the process exits 130 or 143 as a shell expects. A second Ctrl-C while
 * stopping exits at once; the child guard still kills what is left.
 */
const stoppers = new Set<(signal: NodeJS.Signals) => Promise<void>>();
let installed = false;
let stopping = false;

/**
 * Registers `stop` to run on SIGINT/SIGTERM (it is told which); returns a function that
 * unregisters it. The process exits once every registered `stop` has settled.
 */
export function onShutdown(stop: (signal: NodeJS.Signals) => Promise<void>): () => void {
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
    // setImmediate: a stopper settles when its work is written (a suite's report); the
    // command that awaited that work then prints its table in the same turn of microtasks,
    // before the exit, so Ctrl-C keeps what a person reads as well as the files.
    void Promise.allSettled([...stoppers].map((stop) => stop(signal))).then(() =>
      setImmediate(() => process.exit(code)),
    );
  };
  process.on('SIGINT', () => handle('SIGINT', 130));
  process.on('SIGTERM', () => handle('SIGTERM', 143));
}

/**
 * Runs `work` with a signal that SIGINT/SIGTERM abort (its reason: the signal's name), and holds
 * the process's exit until `work` has settled — so a suite interrupted by Ctrl-C still writes its
 * report, and the command prints its table, before the process exits 130.
 */
export async function withShutdownSignal<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  let settled: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (settled = resolve));
  const unregister = onShutdown(async (signal) => {
    abort.abort(signal);
    await done;
  });
  try {
    return await work(abort.signal);
  } finally {
    unregister();
    settled();
  }
}
