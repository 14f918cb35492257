/**
 * A library's own settings, by its own names, and the one time factor of a run.
 *
 * A real library's settings are minutes and hours (River's `RescueStuckJobsAfter` of 1 h,
 * db-scheduler's 5-minute heartbeat); a run lasts seconds. A run compresses **every** duration by
 * one factor k: the scenario's lease stands for one of the library's settings (its *anchor*), so
 * k = the scenario's lease ÷ that setting's value, and every other duration of the library —
 * settings and hard-coded constants alike — is its value × k. Nothing is rescaled on its own
 * silently: a value that would fall below what the library or a process can honour is held at
 * a floor, and the report names the invariants that floor drives.
 *
 * The values are the library's defaults unless the user states their own, in the library's
 * words and units (a scenario's `settings: { river: { JobTimeout: 10m } }`, or
 * `--setting JobTimeout=10m`): then the run is that deployment, compressed by the same rule.
 */
import { formatDuration, parseDuration } from '../duration.js';
import { AdapterError } from './adapter-error.js';
import type { LeaseSettings } from './types.js';

/** One of a library's settings, or a timing constant it hard-codes, as the library has it. */
export interface SettingSpec {
  /** The library's own name, e.g. `RescueStuckJobsAfter`, `missedHeartbeatsLimit`. */
  name: string;
  /** `duration`: milliseconds, compressed by k; `count`: a number, never compressed. */
  kind: 'duration' | 'count';
  /**
   * Its default in the library (ms for a duration). `Infinity` for a duration the library leaves
   * unset by default, meaning no limit (procrastinate's `shutdown_graceful_timeout = None`): shown
   * as `none`, and absent from the values a worker program is given.
   */
  default: number;
  /** Where the default is defined (file and name, or the docs page). */
  where: string;
  /** A constant the library hard-codes: no user can state it. */
  constant?: boolean;
  /**
   * The least the run can use (ms): the library's own minimum, or what a process can honour.
   * A compressed value below it is held there, and the report says which invariants that drives.
   */
  floor?: { ms: number; why: string; drives: string };
  /** The least a user may state (a count), as the library checks it. */
  min?: number;
  /** A relation the library documents with other settings, in its words (for the report). */
  relation?: string;
  /**
   * A default the library computes from the other values when this one is not stated (River's
   * RescueStuckJobsAfter: 1 h, or JobTimeout + 1 h for a JobTimeout over 1 h); `default` is
   * then what the library's docs give as the plain default.
   */
  defaultFrom?: (values: Readonly<Record<string, number>>) => number;
}

/** A library's settings and the one its lease is. */
export interface LibrarySettingsSpec {
  /** The key a scenario's `settings` block uses for this library, e.g. `river`. */
  library: string;
  /**
   * The setting the scenario's lease stands for: k = the scenario's lease ÷ its value. Either a
   * setting's name, or a function of the values (db-scheduler's `heartbeatInterval ×
   * missedHeartbeatsLimit`) with the words for it.
   */
  anchor: string | { words: string; ms: (values: Readonly<Record<string, number>>) => number };
  settings: readonly SettingSpec[];
  /**
   * The library's own refusal of a combination of values (library units, ms), as it would
   * refuse them at start-up: the reason in its words, or undefined when it takes them.
   */
  refuse?: (values: Readonly<Record<string, number>>) => string | undefined;
}

/** One setting as a run uses it. */
export interface SettledSetting {
  name: string;
  kind: 'duration' | 'count';
  /** Its value in the library's own units, as deployed (default or stated), e.g. `1h`. */
  library: string;
  /** Whether the user stated it (scenario or `--setting`); otherwise the library's default. */
  stated: boolean;
  /** The value the run uses, e.g. `1s`. */
  run: string;
  /** The run's value as a number (ms for a duration). */
  runValue: number;
  /** Where the library defines it. */
  where: string;
  constant?: boolean;
  relation?: string;
  /** Present when the run's value is not library × k: held at a floor. */
  held?: { why: string; drives: string };
}

/** A library's settings settled for one run. */
export interface SettledSettings {
  library: string;
  /** The one time factor: run time = library time × k. */
  k: number;
  /** What the scenario's lease stands for, in the library's words. */
  anchor: string;
  settings: SettledSetting[];
  /**
   * Every setting's run value by name (ms for durations): what a worker program is given. A
   * setting with no limit (`Infinity`, the library's None) is absent: the program leaves it unset.
   */
  values: Record<string, number>;
}

/** Settings a user states, by name: a duration as text (`10m`) or ms, a count as a number. */
export type StatedSettings = Readonly<Record<string, string | number>>;

function statedValue(spec: SettingSpec, raw: string | number, source: string): number {
  const where = `${source}: setting ${spec.name}`;
  if (spec.kind === 'count') {
    const n = typeof raw === 'number' ? raw : Number(raw);
    if (!Number.isInteger(n) || n < (spec.min ?? 1)) {
      throw new AdapterError(
        `${where}: expected a whole number of at least ${String(spec.min ?? 1)}, got ${JSON.stringify(raw)}`,
      );
    }
    return n;
  }
  if (typeof raw === 'number') {
    if (!(raw > 0) || !Number.isFinite(raw)) {
      throw new AdapterError(`${where}: expected a positive duration, got ${String(raw)}`);
    }
    return raw;
  }
  try {
    const ms = parseDuration(raw);
    if (!(ms > 0)) throw new Error('not positive');
    return ms;
  } catch {
    throw new AdapterError(
      `${where}: expected a positive duration such as 500ms, 30s, 10m or 1h, got ${JSON.stringify(raw)}`,
    );
  }
}

function shown(kind: 'duration' | 'count', value: number): string {
  if (kind === 'count') return String(value);
  if (value === Infinity) return 'none';
  return formatDuration(Math.round(value * 1000) / 1000);
}

/**
 * The run's settings for a library: the library's values (defaults, or `stated`), the time
 * factor k = `lease.durationMs` ÷ the anchor's value, and every duration × k (held at its floor
 * where it would fall below). `source` names where `stated` came from, for errors. Throws an
 * `AdapterError` for a name the library does not have, a hard-coded constant stated, or a value
 * of the wrong kind.
 */
export function settleSettings(
  spec: LibrarySettingsSpec,
  lease: LeaseSettings,
  stated: StatedSettings = {},
  source = 'settings',
): SettledSettings {
  const byName = new Map(spec.settings.map((s) => [s.name, s]));
  for (const name of Object.keys(stated)) {
    const s = byName.get(name);
    if (s === undefined) {
      throw new AdapterError(
        `${source}: ${spec.library} has no setting "${name}"; its settings are ` +
          spec.settings
            .filter((x) => x.constant !== true)
            .map((x) => x.name)
            .join(', '),
      );
    }
    if (s.constant === true) {
      throw new AdapterError(
        `${source}: ${spec.library}'s ${name} is hard-coded in the library (${s.where}); it cannot be set`,
      );
    }
  }
  const libraryValues: Record<string, number> = {};
  for (const s of spec.settings) {
    const raw = stated[s.name];
    libraryValues[s.name] = raw === undefined ? s.default : statedValue(s, raw, source);
  }
  for (const s of spec.settings) {
    if (s.defaultFrom !== undefined && !Object.hasOwn(stated, s.name)) {
      libraryValues[s.name] = s.defaultFrom(libraryValues);
    }
  }
  const refused = spec.refuse?.(libraryValues);
  if (refused !== undefined) {
    throw new AdapterError(`${source}: ${spec.library} refuses these settings: ${refused}`);
  }
  const anchorMs =
    typeof spec.anchor === 'string'
      ? (libraryValues[spec.anchor] ?? NaN)
      : spec.anchor.ms(libraryValues);
  if (!(anchorMs > 0)) {
    throw new AdapterError(`${spec.library}: its lease setting has no positive value`);
  }
  const k = lease.durationMs / anchorMs;
  const anchorWords = typeof spec.anchor === 'string' ? spec.anchor : spec.anchor.words;
  const settings: SettledSetting[] = spec.settings.map((s) => {
    const value = libraryValues[s.name]!;
    const compressed = s.kind === 'duration' ? value * k : value;
    const held = s.kind === 'duration' && s.floor !== undefined && compressed < s.floor.ms;
    const runValue = held ? s.floor!.ms : compressed;
    return {
      name: s.name,
      kind: s.kind,
      library: shown(s.kind, value),
      stated: Object.hasOwn(stated, s.name),
      run: shown(s.kind, runValue),
      runValue,
      where: s.where,
      ...(s.constant === true && { constant: true }),
      ...(s.relation !== undefined && { relation: s.relation }),
      ...(held && { held: { why: s.floor!.why, drives: s.floor!.drives } }),
    };
  });
  return {
    library: spec.library,
    k,
    anchor: anchorWords,
    settings,
    values: Object.fromEntries(
      settings.filter((s) => Number.isFinite(s.runValue)).map((s) => [s.name, s.runValue]),
    ),
  };
}

/** The run value of `name` (ms for a duration); throws if the spec has no such setting. */
export function settingValue(settled: SettledSettings, name: string): number {
  const value = settled.values[name];
  if (value === undefined) throw new Error(`${settled.library} has no setting ${name}`);
  return value;
}

/** `k` as people read it: `1/3600` for a compression, `×2` for a stretch. */
export function formatFactor(k: number): string {
  if (k >= 1) return `×${String(Math.round(k * 1000) / 1000)}`;
  const inverse = 1 / k;
  const rounded = Math.round(inverse * 100) / 100;
  return `1/${String(rounded)}`;
}

/** One plain sentence per setting, for a report: library value, run value, and any floor. */
export function settingsLines(settled: SettledSettings): string[] {
  const lines = [
    `Time factor k = ${formatFactor(settled.k)} for every duration of ${settled.library}: ` +
      `the scenario's lease is its ${settled.anchor}.`,
  ];
  for (const s of settled.settings) {
    const origin = s.constant === true ? 'hard-coded' : s.stated ? 'stated' : 'default';
    let line =
      `Setting ${s.name}: ${s.library} in ${settled.library} (${origin}, ${s.where}), ` +
      `${s.run} in this run`;
    if (s.kind === 'count') line += ' (a count, not compressed)';
    else if (s.held !== undefined) {
      line +=
        ` — held at this floor instead of ${shown('duration', parseRun(s, settled.k))} ` +
        `(${s.held.why}); it drives ${s.held.drives}`;
    }
    if (s.relation !== undefined) line += `; ${s.relation}`;
    lines.push(`${line}.`);
  }
  return lines;
}

function parseRun(s: SettledSetting, k: number): number {
  return parseDuration(s.library) * k;
}
