/**
 * Every fault kind, one row each: the only list of them. The nemesis starts and heals a kind;
 * what it *means* — the sentence `leaseproof list` prints, whether it may cost a lease, whether it
 * freezes the lease holder, whether a run with it needs the machine to itself, its colour on the
 * timeline — is here, and the history's shape, the scenario loader, the checkers, scale-out and
 * the report read it from here. A new kind is a nemesis module, a row, and its schema entry.
 *
 * This folder imports nothing: every other room may read it.
 */

/** What one fault kind means to the rest of leaseproof. */
export interface FaultKindRow {
  /** What it does to what, in one sentence (`leaseproof list`). */
  readonly description: string;
  /**
   * Whether it can legitimately cost a worker its lease (it stops the process, or cuts or slows
   * its path to the database), or else why not — for a message that lists it beside an expiry
   * it did not cause.
   */
  readonly losesLease: true | { readonly whyNot: string };
  /**
   * For a fault that costs no lease at first: the field of its detail (milliseconds after its
   * start) from which on it may. A graceful stop holds the job it finishes for its shutdown
   * timeout, heartbeating it; only once that is over does it give the job up to its lease.
   */
  readonly losesLeaseAfter?: string;
  /**
   * Whether a worker under it cannot act on anything, its watchdog included (stopped, event loop
   * blocked, or the database its effects go to down): time under it is not a zombie's.
   */
  readonly freezesHolder: boolean;
  /**
   * Whether it freezes the whole worker process, its heartbeat thread included: a heartbeat
   * thread kept from running under such a fault was kept by the fault, not by the machine.
   */
  readonly freezesProcess: boolean;
  /** Why a run with it needs the machine to itself, if it does. */
  readonly runsAlone?: string;
  /** Whom it targets: one worker, some workers, or the database. */
  readonly target: 'worker' | 'workers' | 'db';
  /** Its band's colour on the timeline. */
  readonly colour: string;
}

const NETWORK = '#00acc1';

/** The fault kinds, in the scenario schema's order. */
export const FAULT_KIND_TABLE = {
  partition: {
    description:
      'Cuts a worker off from the database on its own proxy: blackhole (bytes vanish), reset or down (the proxy disabled), both ways or one way.',
    losesLease: true,
    freezesHolder: false,
    freezesProcess: false,
    target: 'workers',
    colour: '#1e88e5',
  },
  latency: {
    description:
      "Delays a worker's traffic to the database by a latency ± jitter, on one stream or both (Toxiproxy latency toxic).",
    losesLease: true,
    freezesHolder: false,
    freezesProcess: false,
    target: 'workers',
    colour: NETWORK,
  },
  bandwidth: {
    description:
      "Throttles a worker's path to the database to a rate in KB/s: small statements barely notice, large results crawl.",
    losesLease: true,
    freezesHolder: false,
    freezesProcess: false,
    target: 'workers',
    colour: NETWORK,
  },
  slicer: {
    description:
      "Cuts a worker's byte stream into small slices with a pause between them, as over a lossy or congested link.",
    losesLease: true,
    freezesHolder: false,
    freezesProcess: false,
    target: 'workers',
    colour: NETWORK,
  },
  pause: {
    description:
      'Stops a worker with SIGSTOP and continues it with SIGCONT: a GC pause, a VM live migration.',
    losesLease: true,
    freezesHolder: true,
    freezesProcess: true,
    target: 'worker',
    colour: '#795548',
  },
  crash: {
    description:
      'Kills a worker with SIGKILL; with restartAfter, a fresh worker takes its place under the same id.',
    losesLease: true,
    freezesHolder: false,
    freezesProcess: false,
    target: 'worker',
    colour: '#212121',
  },
  stop: {
    description:
      'Stops a worker gracefully with SIGTERM: it claims no more, finishes the job it holds while ' +
      'heartbeating it, and exits; past its shutdown timeout it cancels the handler and exits, ' +
      'leaving the job to its lease. With restartAfter, a fresh worker takes its place.',
    losesLease: {
      whyNot:
        'a worker stopping gracefully heartbeats the job it finishes until its shutdown timeout ' +
        'is over, so its lease must not expire before then',
    },
    losesLeaseAfter: 'timeoutMs',
    freezesHolder: false,
    freezesProcess: false,
    target: 'worker',
    colour: '#546e7a',
  },
  clock: {
    description:
      "Skews a worker's Date (offset, drift, optionally a later step); without `for`, a host whose clock is wrong all run.",
    losesLease: {
      whyNot:
        "lease arithmetic is on the database's clock, so a skewed worker clock must not cost a lease",
    },
    freezesHolder: false,
    freezesProcess: false,
    target: 'worker',
    colour: '#00897b',
  },
  stall: {
    description:
      "Blocks a worker's event loop with a synchronous busy loop: a heartbeat on its own thread keeps beating, one on the event loop does not.",
    losesLease: {
      whyNot:
        'the heartbeat extends the lease on its own thread and connection, so a blocked event loop ' +
        'must not cost a lease',
    },
    // The main thread is blocked; the heartbeat thread runs beside it.
    freezesHolder: true,
    freezesProcess: false,
    target: 'worker',
    colour: '#5e35b1',
  },
  'db-restart': {
    description:
      'Takes the database away from every worker at once: a server restart, or every backend terminated as in a failover.',
    losesLease: true,
    freezesHolder: true,
    freezesProcess: true,
    runsAlone: 'a db-restart fault cuts the connections of every run on the server',
    target: 'db',
    colour: '#d81b60',
  },
} as const satisfies Record<string, FaultKindRow>;

/** The kinds of fault (design.md's fault vocabulary). */
export type FaultKind = keyof typeof FAULT_KIND_TABLE;

/** The row of `kind`. */
export function faultKind(kind: FaultKind): FaultKindRow {
  return FAULT_KIND_TABLE[kind];
}

/** Every kind, in the table's order. */
export const FAULT_KINDS = Object.keys(FAULT_KIND_TABLE) as readonly FaultKind[];

/** The kinds whose row says `test`. */
export function kindsWhere(test: (row: FaultKindRow) => boolean): ReadonlySet<FaultKind> {
  return new Set(FAULT_KINDS.filter((k) => test(FAULT_KIND_TABLE[k])));
}
