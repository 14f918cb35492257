/**
 * The worker wire format: what a worker process and the controller say to each other, as JSON
 * values, whatever carries them (Node's IPC channel today; a line of JSON on a pipe for a worker
 * in another language). `docs/worker-wire-format.md` describes it for someone writing a worker;
 * the types are in `types.ts`. This module holds the version and checks what arrives from a
 * worker: a worker leaseproof did not write may send anything, and a malformed message must stop
 * the run as a harness error naming the message, never be read as something the queue did.
 */
import type { EventMessage, WorkerEvent } from './types.js';

/**
 * The wire format's version. Sent in the `config` message and echoed in the worker's `ready`
 * event. A new optional field or event kind keeps the version; a field that changes meaning, or
 * a new field a worker must send, raises it.
 */
export const WIRE_FORMAT_VERSION = 1;

/** A message from a worker that the wire format does not allow. */
export class WireFormatError extends Error {
  /** Stable code, as `LeaseproofError`s have (this module imports nothing outside worker/). */
  readonly code = 'LEASEPROOF_WIRE_FORMAT';

  constructor(message: string) {
    super(message);
    this.name = 'WireFormatError';
  }
}

type FieldType = 'string' | 'number' | 'boolean';

/** Each event kind's required fields and their types (optional fields are not checked here). */
const REQUIRED: Record<WorkerEvent['kind'], Record<string, FieldType | readonly string[]>> = {
  ready: { pid: 'number', wireFormat: 'number' },
  claim: { outcome: ['ok', 'fail', 'info'] },
  extend: { phase: ['invoke', 'complete'], jobId: 'string', token: 'string' },
  ack: { phase: ['invoke', 'complete'], jobId: 'string', token: 'string' },
  fail: { phase: ['invoke', 'complete'], jobId: 'string', token: 'string' },
  checkpoint: { phase: ['invoke', 'complete'], jobId: 'string', token: 'string' },
  lost: { jobId: 'string', token: 'string', reason: 'string' },
  abort: { jobId: 'string', token: 'string', unit: 'number' },
  'abort-ignored': { jobId: 'string', token: 'string', unit: 'number' },
  unit: { jobId: 'string', token: 'string', unit: 'number', effect: 'boolean' },
  effect: { jobId: 'string', token: 'string', unit: 'number', recorded: 'boolean' },
  stall: { ms: 'number' },
  connect: {},
  starved: { thread: ['main', 'heartbeat'], ms: 'number', lateMs: 'number' },
  clock: { workerNow: 'number', realNow: 'number' },
  error: { message: 'string' },
  exit: { reason: 'string' },
};

/** The event kinds of this version, in the order the wire-format document lists them. */
export const WORKER_EVENT_KINDS = Object.keys(REQUIRED) as WorkerEvent['kind'][];

/**
 * Checks one message from a worker and returns it typed: `{"type":"events","events":[…]}`, each
 * event an object with a known `kind`, a numeric `at` and its kind's required fields. Throws a
 * `WireFormatError` that says which event and field, and what was expected.
 */
export function parseWorkerMessage(raw: unknown): EventMessage {
  if (!isObject(raw) || raw.type !== 'events' || !Array.isArray(raw.events)) {
    throw new WireFormatError(`expected {"type":"events","events":[…]}, got ${preview(raw)}`);
  }
  raw.events.forEach((event: unknown, index: number) => checkEvent(event, index));
  return raw as unknown as EventMessage;
}

function checkEvent(event: unknown, index: number): void {
  const where = `events[${index}]`;
  if (!isObject(event))
    throw new WireFormatError(`${where}: expected an object, got ${preview(event)}`);
  const kind = event.kind;
  if (typeof kind !== 'string' || !(kind in REQUIRED)) {
    throw new WireFormatError(
      `${where}.kind: expected one of ${WORKER_EVENT_KINDS.join(', ')}, got ${preview(kind)}`,
    );
  }
  if (typeof event.at !== 'number' || !Number.isFinite(event.at)) {
    throw new WireFormatError(
      `${where}.at (${kind}): expected a number of ms, got ${preview(event.at)}`,
    );
  }
  for (const [field, type] of Object.entries(REQUIRED[kind as WorkerEvent['kind']])) {
    const value = event[field];
    const ok = typeof type === 'string' ? typeof value === type : type.includes(value as string);
    if (!ok) {
      const expected = typeof type === 'string' ? `a ${type}` : `one of ${type.join(', ')}`;
      throw new WireFormatError(
        `${where}.${field} (${kind}): expected ${expected}, got ${preview(value)}`,
      );
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
