import type { QueueAdapter } from './types.js';
import { AdapterError } from './adapter-error.js';

// What each method must be, worded for the person who wrote the adapter.
const METHODS: Readonly<Record<string, string>> = {
  setup: '(db) => Promise<void>',
  teardown: '(db) => Promise<void>',
  enqueue: '(db, jobs) => Promise<string[]>',
  claim: '(db, ctx) => Promise<Claim | undefined>',
  ack: '(db, claim, ctx) => Promise<boolean>',
  fail: '(db, claim, error, ctx) => Promise<boolean>',
};
const PRIMITIVES = ['claim', 'ack', 'fail'];
const AUDIT_EXPRESSIONS = ['jobId', 'holder', 'deadline', 'state'] as const;

/**
 * Everything wrong with the shape of a would-be `QueueAdapter`, one line each (empty when it is
 * one). It checks all members rather than stopping at the first, so one run of the harness tells
 * the author every fix to make.
 */
export function adapterProblems(value: unknown): string[] {
  if (!isObject(value)) return [wrong('the adapter', value, 'an object')];
  const problems: string[] = [];
  if (!isText(value.name)) problems.push(wrong('name', value.name, 'a non-empty string'));
  if (!isText(value.description)) {
    problems.push(wrong('description', value.description, 'a non-empty string (one sentence)'));
  }
  problems.push(...auditProblems(value.audit));
  problems.push(...nativeProblems(value.native));
  for (const [method, signature] of Object.entries(METHODS)) {
    // A native adapter's workers run the library's own loop: its primitives may be absent.
    if (value.native !== undefined && PRIMITIVES.includes(method) && value[method] === undefined) {
      continue;
    }
    if (typeof value[method] !== 'function') {
      problems.push(wrong(method, value[method], `a function ${signature}`));
    }
  }
  if (value.checkpoint !== undefined && typeof value.checkpoint !== 'function') {
    problems.push(
      wrong(
        'checkpoint',
        value.checkpoint,
        'a function (db, claim, cursor, ctx) => Promise<boolean>',
      ),
    );
  }
  const optional: [string, string][] = [
    ['extend', 'a function (db, claim, ctx) => Promise<boolean> (or absent: no lease extension)'],
    ['leaseTerms', 'a function (requested lease) => { lease, notes, rescaled }'],
    ['backendPid', 'a function () => number | undefined'],
    ['open', 'a function () => Promise<void>'],
  ];
  for (const [method, expected] of optional) {
    if (value[method] !== undefined && typeof value[method] !== 'function') {
      problems.push(wrong(method, value[method], expected));
    }
  }
  problems.push(...maintenanceProblems(value.maintenance));
  problems.push(...settingsProblems(value.settings));
  if (value.retries !== undefined && typeof value.retries !== 'boolean') {
    problems.push(wrong('retries', value.retries, 'true or false (absent: true)'));
  }
  problems.push(...workerProblems(value.worker));
  const limits = value.limits;
  if (
    limits !== undefined &&
    (!isObject(limits) || (limits.clockSkew !== undefined && limits.clockSkew !== false))
  ) {
    problems.push(wrong('limits', limits, '{ clockSkew?: false, reason?: string }'));
  }
  const contract = value.contract;
  if (
    contract !== undefined &&
    (!isObject(contract) ||
      (contract.blockingLoop !== undefined && typeof contract.blockingLoop !== 'string') ||
      (contract.fencedOnly !== undefined && typeof contract.fencedOnly !== 'string'))
  ) {
    problems.push(wrong('contract', contract, '{ blockingLoop?: string, fencedOnly?: string }'));
  }
  return problems;
}

/** Throws an `AdapterError` listing every problem when `value` is not a `QueueAdapter`. */
export function assertQueueAdapter(value: unknown, source: string): asserts value is QueueAdapter {
  const problems = adapterProblems(value);
  if (problems.length === 0) return;
  throw new AdapterError(
    `${source} is not a QueueAdapter:\n${problems.map((p) => `  - ${p}`).join('\n')}\n` +
      'The contract is the QueueAdapter type exported by leaseproof (src/queue/types.ts).',
    { problems },
  );
}

function auditProblems(audit: unknown): string[] {
  if (!isObject(audit)) {
    return [
      wrong(
        'audit',
        audit,
        '{ table, expressions: { jobId, holder, deadline, state }, completion }',
      ),
    ];
  }
  const problems: string[] = [];
  if (!isText(audit.table)) problems.push(wrong('audit.table', audit.table, 'the table name'));
  const { expressions } = audit;
  if (!isObject(expressions)) {
    problems.push(wrong('audit.expressions', expressions, '{ jobId, holder, deadline, state }'));
  } else {
    for (const key of AUDIT_EXPRESSIONS) {
      if (!isText(expressions[key])) {
        const expected = 'a SQL expression over the row `r`';
        problems.push(wrong(`audit.expressions.${key}`, expressions[key], expected));
      }
    }
  }
  if (audit.completion !== 'update' && audit.completion !== 'delete') {
    problems.push(wrong('audit.completion', audit.completion, "'update' or 'delete'"));
  }
  for (const key of ['bookkeeping', 'sweep'] as const) {
    if (audit[key] !== undefined && !isText(audit[key])) {
      problems.push(wrong(`audit.${key}`, audit[key], 'a SQL condition over the rows `o` and `r`'));
    }
  }
  if (audit.jobRows !== undefined && !isText(audit.jobRows)) {
    problems.push(wrong('audit.jobRows', audit.jobRows, 'a SQL condition over the row `r`'));
  }
  const { liveness } = audit;
  if (liveness !== undefined) {
    if (!isObject(liveness)) {
      problems.push(wrong('audit.liveness', liveness, '{ table, holds, deadline }'));
    } else {
      if (!isText(liveness.table)) {
        problems.push(wrong('audit.liveness.table', liveness.table, 'the table name'));
      }
      if (!isText(liveness.holds)) {
        problems.push(
          wrong('audit.liveness.holds', liveness.holds, 'a SQL condition over `r` and `l`'),
        );
      }
      if (!isText(liveness.deadline)) {
        problems.push(
          wrong('audit.liveness.deadline', liveness.deadline, 'a SQL expression over `l`'),
        );
      }
    }
  }
  return problems;
}

function maintenanceProblems(maintenance: unknown): string[] {
  if (maintenance === undefined) return [];
  const expected = '{ description, intervalMs(lease), run(db, ctx) }';
  if (!isObject(maintenance)) return [wrong('maintenance', maintenance, expected)];
  const problems: string[] = [];
  if (!isText(maintenance.description)) {
    problems.push(wrong('maintenance.description', maintenance.description, 'one sentence'));
  }
  for (const fn of ['intervalMs', 'run']) {
    if (typeof maintenance[fn] !== 'function') {
      problems.push(wrong(`maintenance.${fn}`, maintenance[fn], 'a function'));
    }
  }
  return problems;
}

function settingsProblems(settings: unknown): string[] {
  if (settings === undefined) return [];
  const expected = '{ library, anchor, settings: [{ name, kind, default, where }] }';
  if (!isObject(settings)) return [wrong('settings', settings, expected)];
  const problems: string[] = [];
  if (typeof settings.library !== 'string' || !/^[a-z][a-z0-9-]*$/.test(settings.library)) {
    problems.push(wrong('settings.library', settings.library, 'a lower-case key such as my-queue'));
  }
  const list = Array.isArray(settings.settings) ? (settings.settings as unknown[]) : undefined;
  if (list === undefined || list.length === 0) {
    return [...problems, wrong('settings.settings', settings.settings, 'a non-empty array')];
  }
  list.forEach((s, i) => {
    const at = `settings.settings[${i}]`;
    if (!isObject(s)) return void problems.push(wrong(at, s, '{ name, kind, default, where }'));
    if (!isText(s.name)) problems.push(wrong(`${at}.name`, s.name, "the library's own name"));
    if (s.kind !== 'duration' && s.kind !== 'count') {
      problems.push(wrong(`${at}.kind`, s.kind, "'duration' or 'count'"));
    }
    if (typeof s.default !== 'number' || !(s.default > 0)) {
      problems.push(wrong(`${at}.default`, s.default, 'a positive number (ms for a duration)'));
    }
    if (!isText(s.where))
      problems.push(wrong(`${at}.where`, s.where, 'where the library defines it'));
  });
  const names = list.filter(isObject).map((s) => s.name);
  const { anchor } = settings;
  const anchorOk =
    (typeof anchor === 'string' && names.includes(anchor)) ||
    (isObject(anchor) && isText(anchor.words) && typeof anchor.ms === 'function');
  if (!anchorOk) {
    problems.push(
      wrong('settings.anchor', anchor, "one of its settings' names, or { words, ms(values) }"),
    );
  }
  return problems;
}

function workerProblems(worker: unknown): string[] {
  if (worker === undefined) return [];
  if (!isObject(worker)) return [wrong('worker', worker, '{ heartbeat?, watchdog? }')];
  const problems: string[] = [];
  const { heartbeat, watchdog } = worker;
  if (heartbeat !== undefined && heartbeat !== 'thread' && heartbeat !== 'event-loop') {
    problems.push(wrong('worker.heartbeat', heartbeat, "'thread' or 'event-loop'"));
  }
  if (watchdog !== undefined && typeof watchdog !== 'boolean' && watchdog !== 'between-jobs') {
    problems.push(wrong('worker.watchdog', watchdog, "true, false or 'between-jobs'"));
  }
  return problems;
}

/** "claim: got a string ("x"); expected …" or "ack: missing; expected …". */
function wrong(path: string, value: unknown, expected: string): string {
  const got = value === undefined ? 'missing' : `got ${describeValue(value)}`;
  return `${path}: ${got}; expected ${expected}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** "a string ("x")", "a number (3)", "null", "an array", "a function"… */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
    case 'number':
    case 'boolean':
    case 'bigint':
      return `a ${typeof value} (${String(value)})`;
    case 'object':
      return 'an object';
    default:
      return `a ${typeof value}`;
  }
}

function nativeProblems(native: unknown): string[] {
  if (native === undefined) return [];
  const expected =
    '{ description: string, extendsLease: boolean, program(): Promise<{ command }> }';
  if (!isObject(native)) return [wrong('native', native, expected)];
  const problems: string[] = [];
  if (!isText(native.description)) {
    problems.push(wrong('native.description', native.description, 'a non-empty string'));
  }
  if (typeof native.extendsLease !== 'boolean') {
    problems.push(wrong('native.extendsLease', native.extendsLease, 'true or false'));
  }
  if (typeof native.program !== 'function') {
    problems.push(wrong('native.program', native.program, 'a function () => Promise<{ command }>'));
  }
  const { sweep } = native;
  if (sweep !== undefined) {
    if (!isObject(sweep)) {
      problems.push(wrong('native.sweep', sweep, '{ description, intervalMs(lease) }'));
    } else {
      if (!isText(sweep.description)) {
        problems.push(wrong('native.sweep.description', sweep.description, 'a non-empty string'));
      }
      if (typeof sweep.intervalMs !== 'function') {
        problems.push(
          wrong('native.sweep.intervalMs', sweep.intervalMs, 'a function (lease) => number'),
        );
      }
    }
  }
  return problems;
}
