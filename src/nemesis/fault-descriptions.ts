import type { FaultKind } from '../history/types.js';

/**
 * Every fault a scenario may use, in a sentence: what it does to what (`leaseproof list`
 * prints these), in the order of the scenario schema. A `Record` over `FaultKind`, so a new
 * kind does not compile without its sentence.
 */
export const FAULT_DESCRIPTIONS: Readonly<Record<FaultKind, string>> = Object.freeze({
  partition:
    'Cuts a worker off from the database on its own proxy: blackhole (bytes vanish), reset or down (the proxy disabled), both ways or one way.',
  latency:
    "Delays a worker's traffic to the database by a latency ± jitter, on one stream or both (Toxiproxy latency toxic).",
  bandwidth:
    "Throttles a worker's path to the database to a rate in KB/s: small statements barely notice, large results crawl.",
  slicer:
    "Cuts a worker's byte stream into small slices with a pause between them, as over a lossy or congested link.",
  pause:
    'Stops a worker with SIGSTOP and continues it with SIGCONT: a GC pause, a VM live migration.',
  crash:
    'Kills a worker with SIGKILL; with restartAfter, a fresh worker takes its place under the same id.',
  clock:
    "Skews a worker's Date (offset, drift, optionally a later step); without `for`, a host whose clock is wrong all run.",
  stall:
    "Blocks a worker's event loop with a synchronous busy loop: a heartbeat on its own thread keeps beating, one on the event loop does not.",
  'db-restart':
    'Takes the database away from every worker at once: a server restart, or every backend terminated as in a failover.',
});
