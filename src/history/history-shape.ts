/**
 * Checks that a parsed JSON value has the shape of a header or of an event of `types.ts`,
 * returning what is wrong (or undefined). Hand-written rather than a JSON Schema validator: the
 * shapes are small and fixed, the reader runs it on every line of a million-line file, and the
 * messages name the field the way a person fixing the file needs.
 */
import { FAULT_KINDS } from '../faults/fault-kinds.js';
import { HISTORY_VERSION, type HistoryEvent, type HistoryHeader } from './types.js';

type Check = (value: unknown) => string | undefined;
type Shape = Record<string, Check>;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const number: Check = (v) => (typeof v === 'number' && Number.isFinite(v) ? undefined : 'a number');
const string: Check = (v) => (typeof v === 'string' ? undefined : 'a string');
const boolean: Check = (v) => (typeof v === 'boolean' ? undefined : 'true or false');
const orNull =
  (check: Check): Check =>
  (v) =>
    v === null ? undefined : check(v) && `${check(v)} or null`;
const optional =
  (check: Check): Check =>
  (v) =>
    v === undefined ? undefined : check(v);
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v) ? undefined : `one of ${values.join(', ')}`;
const object =
  (shape: Shape, name: string): Check =>
  (v) => {
    if (!isObject(v)) return `${name} object`;
    const problem = problemOf(v, shape);
    return problem && `${name} object whose ${problem}`;
  };
const stringArray: Check = (v) =>
  Array.isArray(v) && v.every((s) => typeof s === 'string') ? undefined : 'an array of strings';
const record: Check = (v) => (isObject(v) ? undefined : 'an object');

const image = orNull(
  object(
    {
      holder: orNull(string),
      deadline: orNull(number),
      state: oneOf('pending', 'held', 'completed', 'failed', 'dead'),
    },
    'a lease image',
  ),
);

const HEADER: Shape = {
  version: number,
  scenario: string,
  seed: number,
  queue: string,
  versions: object(
    { leaseproof: string, postgres: string, toxiproxy: string, node: string },
    'a versions',
  ),
  lease: object(
    { durationMs: number, heartbeatMs: number, extendByMs: number, pollMs: number },
    'a lease',
  ),
  workers: stringArray,
  clockOffsetMs: number,
  clockUncertaintyMs: number,
  startedAt: number,
  allowDeadLetter: optional(boolean),
  failAttempts: optional(number),
};

const EVENTS: Record<HistoryEvent['type'], Shape> = {
  audit: {
    t: number,
    stmtT: number,
    txnT: number,
    xid: string,
    app: string,
    pid: optional(number),
    op: oneOf('insert', 'update', 'delete'),
    job: string,
    old: image,
    new: image,
  },
  effect: { t: number, worker: string, job: string, token: string, unit: number },
  worker: {
    t: number,
    worker: string,
    kind: string,
    phase: optional(oneOf('invoke', 'complete')),
    outcome: optional(oneOf('ok', 'fail', 'info')),
    job: optional(string),
    token: optional(string),
    unit: optional(number),
    detail: optional(string),
    thread: optional(oneOf('main', 'heartbeat')),
    invokedT: optional(number),
    pid: optional(number),
    startsOnGo: optional((v) => (v === true ? undefined : 'true')),
    ms: optional(number),
  },
  nemesis: {
    t: number,
    phase: oneOf('start', 'end'),
    fault: oneOf(...FAULT_KINDS),
    target: string,
    id: string,
    detail: optional(record),
  },
  job: {
    t: number,
    job: string,
    units: number,
    maxUnitMs: number,
    totalMs: optional(number),
    blocks: optional((v) => (v === true ? undefined : 'true')),
  },
  end: { t: number, drained: boolean },
};

/** The first field of `value` that does not fit `shape`, as "field is not …", or undefined. */
function problemOf(value: Record<string, unknown>, shape: Shape): string | undefined {
  for (const [field, check] of Object.entries(shape)) {
    const expected = check(value[field]);
    if (expected === undefined) continue;
    return field in value
      ? `field "${field}" is ${JSON.stringify(value[field])}, expected ${expected}`
      : `field "${field}" is missing (expected ${expected})`;
  }
  return undefined;
}

/** What is wrong with a header line, or undefined when it is a header of this version. */
export function headerProblem(value: unknown): string | undefined {
  if (!isObject(value) || value.type !== 'header') {
    return 'the first line is not a history header ({"type":"header",…})';
  }
  if (typeof value.version === 'number' && Math.trunc(value.version) !== HISTORY_VERSION) {
    return (
      `history version ${value.version} cannot be read: this leaseproof reads version ` +
      `${HISTORY_VERSION}`
    );
  }
  const problem = problemOf(value, HEADER);
  return problem && `header ${problem}`;
}

/** What is wrong with an event line, or undefined when it is an event of a known type. */
export function eventProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'not an event object';
  const type = value.type;
  if (typeof type !== 'string' || !Object.hasOwn(EVENTS, type)) {
    return `unknown event type ${JSON.stringify(type)} (expected one of ${Object.keys(EVENTS).join(', ')})`;
  }
  const problem = problemOf(value, EVENTS[type as HistoryEvent['type']]);
  return problem && `${type} event ${problem}`;
}

/** Narrows after `headerProblem` found nothing. */
export const asHeader = (value: unknown): HistoryHeader => value as HistoryHeader;
/** Narrows after `eventProblem` found nothing. */
export const asEvent = (value: unknown): HistoryEvent => value as HistoryEvent;
