/**
 * A queue whose code is a program in any language, driven by leaseproof's worker loop through the
 * primitives protocol (`docs/worker-protocol.md`): JSON lines on the program's stdin and stdout.
 * leaseproof's Node worker keeps everything that is the harness's — claims on `go`, heartbeats
 * from a thread of their own, the watchdog, the handler's units and effects, starvation probes —
 * and every queue operation is the program's own code, over the program's own connections (named
 * by worker id, through the worker's proxy, so faults and the audit reach them).
 */
import { adapterLoadTimeoutMs } from '../../queue/adapter-deadline.js';
import { AdapterError } from '../../queue/adapter-error.js';
import { currentClockSkewMs } from '../../queue/clock-skew-reading.js';
import type {
  AuditDescription,
  Claim,
  JobSpec,
  QueueAdapter,
  QueueContext,
  SetupContext,
} from '../../queue/types.js';
import { LineProgram, type LineAnswer } from './line-program.js';
import { NO_LIBFAKETIME, ProgramClock, findLibfaketime } from './program-clock.js';

/** The version of the primitives protocol this side speaks; `describe` must echo it. */
export const PRIMITIVES_PROTOCOL_VERSION = 1;

/** How to start a queue program. */
export interface ProgramQueueOptions {
  /** The executable and its arguments, started directly (no shell). */
  command: readonly string[];
  /** Its working directory (default: the current one). */
  cwd?: string;
  /** Environment added to leaseproof's own. */
  env?: Readonly<Record<string, string>>;
  /**
   * `false`: do not skew the program's clock with libfaketime (a runtime it does not work for:
   * Go reads the clock itself). Runs that skew a worker's clock then read `unknown`, saying why,
   * as they do where libfaketime is not installed. Default: skew it when libfaketime is here.
   */
  clockSkew?: boolean;
}

// What `describe` answers.
interface Description {
  protocol: number;
  name: string;
  description: string;
  audit: AuditDescription;
  ops: string[];
  retries?: boolean;
}

/**
 * An adapter factory for a queue program: pass it (or export it) wherever leaseproof takes an
 * adapter (`export default programQueue({ command: ['./my-queue'] })`). Each process that loads
 * it — the controller, every worker, every heartbeat thread — starts one program, once, and asks
 * it to `describe` itself; the program exits when stdin closes.
 */
export function programQueue(options: ProgramQueueOptions): () => Promise<QueueAdapter> {
  if (!Array.isArray(options.command) || options.command.length === 0) {
    throw new AdapterError('programQueue: `command` must be a non-empty array (program, ...args)');
  }
  let made: Promise<QueueAdapter> | undefined;
  return () => (made ??= makeProgramQueue(options));
}

async function makeProgramQueue(options: ProgramQueueOptions): Promise<QueueAdapter> {
  const label = `queue program "${options.command.join(' ')}"`;
  const library = options.clockSkew === false ? undefined : findLibfaketime();
  const clock = library === undefined ? undefined : new ProgramClock(library);
  const program = new LineProgram({
    command: options.command,
    cwd: options.cwd,
    env: { ...options.env, ...clock?.env() },
    label,
  });
  process.once('exit', () => {
    program.stop();
    clock?.remove();
  });
  const answer = await program.request({ op: 'describe' }, adapterLoadTimeoutMs());
  const described = checkDescription(answer.ok, label);
  let lastPid: number | undefined;

  const call = async (
    request: Record<string, unknown>,
    boundMs: number,
  ): Promise<LineAnswer['ok']> => {
    clock?.set(currentClockSkewMs());
    try {
      const reply = await program.request(request, boundMs);
      if (reply.pid !== undefined) lastPid = reply.pid;
      warm = true;
      return reply.ok;
    } catch (error) {
      warm = false;
      throw error;
    }
  };
  const setupConn = (ctx: SetupContext | undefined, what: string) => {
    if (ctx?.databaseUrl === undefined) {
      throw new AdapterError(`${label}: ${what}() needs the run database's URL (SetupContext)`);
    }
    return {
      url: ctx.databaseUrl,
      applicationName: ctx.applicationName ?? 'leaseproof-controller',
    };
  };
  // A worker's call: its own proxy, its own name, the statement bounded by the lease.
  const workerRequest = (op: string, ctx: QueueContext, more: Record<string, unknown> = {}) => {
    if (ctx.databaseUrl === undefined) {
      throw new AdapterError(`${label}: ${op}() needs the worker's database URL (QueueContext)`);
    }
    return {
      op,
      conn: {
        url: ctx.databaseUrl,
        applicationName: ctx.workerId,
        statementTimeoutMs: ctx.lease.durationMs,
      },
      lease: ctx.lease,
      workerNow: ctx.workerNow(),
      ...more,
    };
  };
  // A call is bounded as a call on leaseproof's own connection is: one statement timeout (the
  // lease's length) on a warm connection; connecting first (a fresh program, or one whose last
  // call failed and dropped its connection) adds a connect bounded the same, and a program's
  // start-up a second. Past it the answer is `info` and the program is killed, its connection
  // stuck behind a cut network. A longer bound on a warm call would let a heartbeat learn of a
  // lost claim later than leaseproof's own worker does.
  let warm = false;
  const callBound = (ctx: QueueContext) =>
    warm ? ctx.lease.durationMs : 2 * ctx.lease.durationMs + 1_000;
  const held = (op: string) => (value: unknown) => {
    if (typeof value !== 'boolean') {
      throw new AdapterError(
        `${label}: ${op} answered ${JSON.stringify(value)}; expected true or false`,
      );
    }
    return value;
  };

  const adapter: QueueAdapter = {
    name: described.name,
    description: described.description,
    audit: described.audit,
    ...(described.retries !== undefined && { retries: described.retries }),
    ...(clock === undefined && {
      limits: {
        clockSkew: false,
        reason:
          options.clockSkew === false
            ? 'its program is started without libfaketime (programQueue option clockSkew: false)'
            : NO_LIBFAKETIME,
      },
    }),
    backendPid: () => lastPid,
    async setup(_db, ctx) {
      await call(
        { op: 'setup', conn: setupConn(ctx, 'setup'), lease: ctx?.lease },
        adapterLoadTimeoutMs(),
      );
    },
    async teardown() {
      // The run database is dropped whole; a program has nothing of its own to undo there.
    },
    async enqueue(_db, jobs: JobSpec[], ctx) {
      const ids = await call(
        { op: 'enqueue', conn: setupConn(ctx, 'enqueue'), lease: ctx?.lease, jobs },
        adapterLoadTimeoutMs(),
      );
      if (
        !Array.isArray(ids) ||
        ids.length !== jobs.length ||
        !ids.every((i) => typeof i === 'string')
      ) {
        throw new AdapterError(
          `${label}: enqueue of ${jobs.length} job(s) answered ${JSON.stringify(ids)}; expected as many ids as text`,
        );
      }
      return ids;
    },
    async claim(_db, ctx) {
      const value = await call(workerRequest('claim', ctx), callBound(ctx));
      return value === null ? undefined : checkClaim(value, label);
    },
    ack: (_db, claim, ctx) =>
      call(workerRequest('ack', ctx, { claim }), callBound(ctx)).then(held('ack')),
    fail: (_db, claim, error, ctx) =>
      call(workerRequest('fail', ctx, { claim, error }), callBound(ctx)).then(held('fail')),
    ...(described.ops.includes('extend') && {
      extend: (_db: unknown, claim: Claim, ctx: QueueContext) =>
        call(workerRequest('extend', ctx, { claim }), callBound(ctx)).then(held('extend')),
    }),
    ...(described.ops.includes('checkpoint') && {
      checkpoint: (_db: unknown, claim: Claim, cursor: string, ctx: QueueContext) =>
        call(workerRequest('checkpoint', ctx, { claim, cursor }), callBound(ctx)).then(
          held('checkpoint'),
        ),
    }),
  };
  return adapter;
}

function checkDescription(value: unknown, label: string): Description {
  const d = value as Partial<Description> | null;
  const problems: string[] = [];
  if (d === null || typeof d !== 'object') {
    throw new AdapterError(
      `${label}: describe answered ${JSON.stringify(value)}; expected an object`,
    );
  }
  if (d.protocol !== PRIMITIVES_PROTOCOL_VERSION) {
    problems.push(
      `it speaks primitives protocol ${String(d.protocol)}; leaseproof speaks ${PRIMITIVES_PROTOCOL_VERSION}`,
    );
  }
  if (typeof d.name !== 'string' || d.name === '')
    problems.push('"name" must be a non-empty string');
  if (d.description !== undefined && typeof d.description !== 'string') {
    problems.push('"description" must be a string');
  }
  if (d.audit === null || typeof d.audit !== 'object') problems.push('"audit" must be an object');
  if (!Array.isArray(d.ops)) problems.push('"ops" must be an array of the optional operations');
  if (d.retries !== undefined && typeof d.retries !== 'boolean') {
    problems.push('"retries" must be true or false');
  }
  if (problems.length > 0) {
    throw new AdapterError(`${label}: its description is wrong:\n  - ${problems.join('\n  - ')}`);
  }
  return { description: '', ...d } as Description;
}

function checkClaim(value: unknown, label: string): Claim {
  const c = value as Partial<Claim> | null;
  if (
    c === null ||
    typeof c !== 'object' ||
    typeof c.jobId !== 'string' ||
    typeof c.token !== 'string' ||
    typeof c.attempt !== 'number' ||
    c.payload === null ||
    typeof c.payload !== 'object'
  ) {
    throw new AdapterError(
      `${label}: claim answered ${JSON.stringify(value)?.slice(0, 200)}; expected null or ` +
        '{ jobId: string, token: string, attempt: number, payload: object, cursor? }',
    );
  }
  return c as Claim;
}
