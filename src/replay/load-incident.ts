/**
 * Incident files: a postmortem's timeline in its own clock, in operators' words and production
 * values (`scenarios/incident.schema.json`), turned into an ordinary scenario — every duration
 * multiplied by `timeScale`, named workers mapped onto slots, each incident event onto the fault
 * vocabulary — so that it replays on the existing executor and is judged by the same checkers.
 * A bad file is one `ScenarioError` ("invalid incident file …") naming every problem's place.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { ALL_CHECKERS } from '../checker/index.js';
import { formatDuration, parseDuration } from '../duration.js';
import { loadScenario, parseScenario, place } from '../scenario/load-scenario.js';
import { ScenarioError, type ScenarioProblem } from '../scenario/scenario-error.js';
import type { SchemaObject } from '../scenario/scenario-schema.js';
import type { Scenario } from '../scenario/scenario-types.js';
import { schemaProblems, type PathProblem } from '../scenario/schema-problems.js';
import { parseYamlSource } from '../scenario/yaml-source.js';
import {
  formatTimeScale,
  IncidentTimeError,
  incidentOffset,
  parseStamp,
  parseTimeScale,
} from './incident-time.js';

/** The published schema of incident files. */
export const INCIDENT_SCHEMA_PATH = fileURLToPath(
  new URL('../../scenarios/incident.schema.json', import.meta.url),
);

/** One event of the incident, in its own clock. */
export interface IncidentEvent {
  /** Ms after the incident's start (production time). */
  atMs: number;
  /** The operators' word for it (`gc-pause`, `deploy`, …). */
  kind: string;
  /** A one-line label for reports, in the incident's words. */
  label: string;
}

/** A loaded incident and the scenario that replays it. */
export interface Incident {
  name: string;
  /** Epoch ms of the incident's time zero. */
  startMs: number;
  /** Replay time / incident time. */
  timeScale: number;
  /** The time scale as the file wrote it (`1/30`), for messages and reports. */
  timeScaleText: string;
  /** Worker names in slot order: `workers[0]` is w1. */
  workers: string[];
  events: IncidentEvent[];
  /** The compressed scenario. */
  scenario: Scenario;
  /** Its YAML-shaped document, before validation (for `--write-scenario` and reading). */
  document: Record<string, unknown>;
}

let validator: ValidateFunction | undefined;
let schema: SchemaObject | undefined;
function incidentSchema(): SchemaObject {
  schema ??= JSON.parse(readFileSync(INCIDENT_SCHEMA_PATH, 'utf8')) as SchemaObject;
  return schema;
}

/** Reads an incident file. */
export async function loadIncident(file: string, what: IncidentWhatIf = {}): Promise<Incident> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw bad(file, [
      {
        path: '',
        found: code === 'ENOENT' ? 'no such file' : message,
        expected: 'a readable YAML incident file',
      },
    ]);
  }
  return parseIncident(text, file, what);
}

/** A what-if on an incident: the same timeline under other settings. */
export interface IncidentWhatIf {
  /** Another lease duration (production ms). */
  leaseMs?: number;
}

function release(lease: RawIncident['lease'], leaseMs: number): RawIncident['lease'] {
  const ratio = leaseMs / parseDuration(lease.duration);
  const scaled = (d: string): string => formatDuration(parseDuration(d) * ratio);
  return {
    duration: formatDuration(leaseMs),
    heartbeat: scaled(lease.heartbeat),
    extendBy: scaled(lease.extendBy ?? lease.duration),
    ...(lease.poll !== undefined && { poll: lease.poll }),
  };
}

/** Whether parsed YAML looks like an incident file rather than a scenario (it has a timeline). */
export function looksLikeIncident(data: unknown): boolean {
  return typeof data === 'object' && data !== null && 'timeline' in data && 'timeScale' in data;
}

interface RawIncident {
  name: string;
  description?: string;
  seed?: number;
  start: string;
  timeScale: string | number;
  lease: { duration: string; heartbeat: string; extendBy?: string; poll?: string };
  workers: string[];
  jobs: {
    count: number;
    handler: { units: number; p50: string; p999: string; effectEvery?: number };
  };
  timeline: Record<string, unknown>[];
}

/** Parses incident text; `file` names it in errors. */
export function parseIncident(
  text: string,
  file = '<incident>',
  what: IncidentWhatIf = {},
): Incident {
  const source = parseYamlSource(text, file);
  validator ??= new Ajv({ allErrors: true, verbose: true, strict: false }).compile(
    incidentSchema(),
  );
  if (!validator(source.data)) {
    throw bad(file, place(source, schemaProblems(validator.errors ?? [], incidentSchema())));
  }
  const raw = source.data as RawIncident;
  const problems: PathProblem[] = [];
  const time = <T>(path: (string | number)[], read: () => T, fallback: T): T => {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof IncidentTimeError)) throw error;
      problems.push({ path, found: error.found, expected: error.expected });
      return fallback;
    }
  };
  const startMs = time(['start'], () => parseStamp(raw.start), 0);
  const scale = time(['timeScale'], () => parseTimeScale(raw.timeScale), 1);
  const scaleText = formatTimeScale(raw.timeScale);
  const slot = new Map(raw.workers.map((name, i) => [name, i + 1]));
  const known = raw.workers.join(', ');
  const workerOf = (path: (string | number)[], name: string): number => {
    const n = slot.get(name);
    if (n === undefined) {
      problems.push({
        path,
        found: JSON.stringify(name),
        expected: `one of the incident's workers (${known})`,
      });
      return 1;
    }
    return n;
  };
  const workersOf = (path: (string | number)[], names: unknown): number[] =>
    names === 'all'
      ? raw.workers.map((_, i) => i + 1)
      : (names as string[]).map((name, i) => workerOf([...path, i], name));
  // Compressed: production durations times the scale, at least a millisecond.
  const z = (duration: string): string =>
    formatDuration(Math.max(1, parseDuration(duration) * scale));
  const zMs = (ms: number): string => formatDuration(Math.max(0, ms * scale));

  const faults: Record<string, unknown>[] = [];
  const events: IncidentEvent[] = [];
  let previous = -1;
  raw.timeline.forEach((event, i) => {
    const at = time(['timeline', i, 'at'], () => incidentOffset(String(event.at), startMs), 0);
    if (at < previous) {
      problems.push({
        path: ['timeline', i, 'at'],
        found: JSON.stringify(event.at),
        expected: `a time at or after the previous event's (timeline[${i - 1}]): events in order`,
      });
    }
    previous = Math.max(previous, at);
    const [kind, body] = Object.entries(event).find(([k]) => k !== 'at') as [
      string,
      Record<string, unknown>,
    ];
    const path = ['timeline', i, kind];
    const atText = zMs(at);
    switch (kind) {
      case 'gc-pause':
      case 'vm-freeze': {
        const worker = workerOf([...path, 'worker'], body.worker as string);
        faults.push({ at: atText, pause: { worker, for: z(body.for as string) } });
        events.push({
          atMs: at,
          kind,
          label: `${kind} of ${String(body.worker)} for ${String(body.for)}`,
        });
        break;
      }
      case 'deploy': {
        const stagger = body.stagger === undefined ? 0 : parseDuration(body.stagger as string);
        const down = (body.down as string | undefined) ?? '1s';
        workersOf([...path, 'workers'], body.workers).forEach((worker, k) => {
          faults.push({ at: zMs(at + k * stagger), crash: { worker, restartAfter: z(down) } });
        });
        events.push({
          atMs: at,
          kind,
          label: `deploy of ${body.workers === 'all' ? 'all workers' : (body.workers as string[]).join(', ')}`,
        });
        break;
      }
      case 'db-failover': {
        const mode = (body.mode as string | undefined) ?? 'terminate';
        faults.push({
          at: atText,
          'db-restart': { mode, ...(body.for !== undefined && { for: z(body.for as string) }) },
        });
        events.push({
          atMs: at,
          kind,
          label: `database ${mode === 'restart' ? 'restart' : 'failover'}`,
        });
        break;
      }
      case 'partition':
        faults.push({
          at: atText,
          partition: {
            workers: workersOf([...path, 'workers'], body.workers),
            mode: 'blackhole',
            for: z(body.for as string),
          },
        });
        events.push({ atMs: at, kind, label: `partition for ${String(body.for)}` });
        break;
      case 'latency-spike':
        faults.push({
          at: atText,
          latency: {
            workers: workersOf([...path, 'workers'], body.workers),
            latency: z(body.latency as string),
            for: z(body.for as string),
          },
        });
        events.push({ atMs: at, kind, label: `latency spike of ${String(body.latency)}` });
        break;
      case 'clock-drift': {
        // Drift accumulates with elapsed time, which the replay compresses: the same error at
        // the same incident moments needs the rate divided by the scale.
        const ppm = (body.ppm as number) / scale;
        faults.push({
          at: atText,
          clock: {
            worker: workerOf([...path, 'worker'], body.worker as string),
            offset: '0ms',
            driftPpm: ppm,
          },
        });
        events.push({
          atMs: at,
          kind,
          label: `clock of ${String(body.worker)} drifting ${String(body.ppm)} ppm`,
        });
        break;
      }
      case 'clock-step': {
        const by = body.by as string;
        const sign = by.startsWith('-') ? '-' : '+';
        const magnitude = parseDuration(by.replace(/^[+-]/, ''));
        // A clock step is wall-clock error, not elapsed time: it is not compressed.
        faults.push({
          at: atText,
          clock: {
            worker: workerOf([...path, 'worker'], body.worker as string),
            offset: `${sign}${formatDuration(magnitude)}`,
          },
        });
        events.push({ atMs: at, kind, label: `clock of ${String(body.worker)} stepped ${by}` });
        break;
      }
    }
  });
  if (problems.length > 0) throw bad(file, place(source, problems));

  const { jobs } = raw;
  // A what-if: another lease, in production time; heartbeat and extension keep their ratios to it.
  const lease = what.leaseMs === undefined ? raw.lease : release(raw.lease, what.leaseMs);
  const document: Record<string, unknown> = {
    name: raw.name,
    description:
      raw.description ??
      `Incident ${raw.name}, replayed at time scale ${scaleText} (${raw.workers.join(', ')} as w1…w${raw.workers.length}).`,
    seed: raw.seed ?? 1,
    lease: {
      duration: z(lease.duration),
      heartbeat: z(lease.heartbeat),
      ...(lease.extendBy !== undefined && { extendBy: z(lease.extendBy) }),
      ...(lease.poll !== undefined && { poll: z(lease.poll) }),
    },
    workers: raw.workers.length,
    jobs: {
      count: jobs.count,
      handler: {
        units: jobs.handler.units,
        unit: { dist: 'lognormal', p50: z(jobs.handler.p50), p999: z(jobs.handler.p999) },
        effectEvery: jobs.handler.effectEvery ?? 1,
      },
    },
    faults,
    check: ALL_CHECKERS.map((c) => c.name),
  };
  let scenario: Scenario;
  try {
    scenario = parseScenario(JSON.stringify(document), file);
  } catch (error) {
    if (!(error instanceof ScenarioError)) throw error;
    // The compressed scenario is ours; a problem in it is a problem of the incident's values.
    throw bad(
      file,
      error.problems.map(({ path, found, expected }) => ({
        path: `(compressed scenario) ${path}`,
        found,
        expected,
      })),
    );
  }
  return {
    name: raw.name,
    startMs,
    timeScale: scale,
    timeScaleText: scaleText,
    workers: raw.workers,
    events,
    scenario,
    document,
  };
}

function bad(file: string, problems: ScenarioProblem[]): ScenarioError {
  return new ScenarioError(file, problems, { kind: 'incident file' });
}

/**
 * A scenario file, or an incident file replayed as its compressed scenario: what `run` and
 * `suite` accept. An incident is told apart by its `timeline` and `timeScale`.
 */
export async function loadScenarioOrIncident(
  file: string,
): Promise<{ scenario: Scenario; incident?: Incident }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return { scenario: await loadScenario(file) };
  }
  let data: unknown;
  try {
    data = parseYamlSource(text, file).data;
  } catch {
    return { scenario: parseScenario(text, file) };
  }
  if (!looksLikeIncident(data)) return { scenario: parseScenario(text, file) };
  const incident = parseIncident(text, file);
  return { scenario: incident.scenario, incident };
}
