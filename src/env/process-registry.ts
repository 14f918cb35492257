import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stateDir } from './state-dir.js';

/** A process leaseproof started, written down so that it can be stopped even if we are killed. */
export interface ProcessRecord {
  /** The run that started it. */
  runId: string;
  /** What it is. */
  kind: 'postgres' | 'toxiproxy' | 'worker' | 'hog';
  /** Its pid. */
  pid: number;
  /** The pid of the leaseproof process that owns it; while that lives, nobody else touches it. */
  ownerPid: number;
  /**
   * When the process started, as the system tells it (`processIdentity`), read when the record
   * was written. A pid can be reused after a reboot or a long time; a live process with this pid
   * but another start time is not ours and is never signalled. Undefined when the process had
   * exited before it could be read: such a record is only ever forgotten.
   */
  startedAt?: string | undefined;
  /**
   * Records written by leaseproof before 0.1.0's wire format: a substring of the command line
   * instead of `startedAt`. Read, never written.
   */
  match?: string | undefined;
  /** The signal that stops it cleanly (postgres: SIGINT, a fast shutdown). */
  stopSignal: NodeJS.Signals;
  /** A temporary folder of its own to delete once it is stopped (postgres' data directory). */
  removeDir?: string | undefined;
}

/** What `reapLeftovers` did about one record. */
export interface ReapedProcess {
  /** The record. */
  record: ProcessRecord;
  /** `stopped`: it was running and is now stopped; `gone`: it had already exited. */
  outcome: 'stopped' | 'gone';
}

function recordsDir(): string {
  return join(stateDir(), 'processes');
}

function fileOf(record: ProcessRecord): string {
  return join(recordsDir(), `${record.runId}-${record.kind}-${record.pid}.json`);
}

/**
 * Writes a record of a started process, with its start time read now (`startedAt`): the
 * registry, not anything in the process's command line, is what later finds it again — a worker
 * in another language, or a server, is recognised the same way.
 */
export async function recordProcess(
  record: Omit<ProcessRecord, 'startedAt' | 'match'>,
): Promise<ProcessRecord> {
  const written: ProcessRecord = { ...record, startedAt: processIdentity(record.pid) };
  await mkdir(recordsDir(), { recursive: true });
  await writeFile(fileOf(written), JSON.stringify(written) + '\n');
  return written;
}

/** Deletes the record of a process that was stopped cleanly. */
export async function forgetProcess(record: ProcessRecord): Promise<void> {
  await rm(fileOf(record), { force: true });
}

/** Reads every record; unreadable files are skipped (a write cut short by a SIGKILL). */
export async function listProcessRecords(): Promise<ProcessRecord[]> {
  const names = await readdir(recordsDir()).catch(() => [] as string[]);
  const records: ProcessRecord[] = [];
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    try {
      records.push(JSON.parse(await readFile(join(recordsDir(), name), 'utf8')) as ProcessRecord);
    } catch {
      await rm(join(recordsDir(), name), { force: true });
    }
  }
  return records;
}

/** Whether a process with this pid exists (zombies count as gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return processState(pid) !== 'Z';
}

/** The one-letter state of a process from /proc (`R`, `S`, `T` stopped, `Z` zombie…), if known. */
export function processState(pid: number): string | undefined {
  const stat = readProcSync(`/proc/${pid}/stat`);
  return stat === undefined ? undefined : /\) (\S)/.exec(stat)?.[1];
}

// Synchronous on purpose: /proc reads never block, and liveness checks run in tight loops.
function readProcSync(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * What tells this process apart from any later one given the same pid: its start time. On Linux
 * the kernel's `starttime` (clock ticks since boot, field 22 of /proc/<pid>/stat); where there is
 * no /proc (macOS), `ps`'s start time. Undefined when the process is gone or cannot be read.
 */
export function processIdentity(pid: number): string | undefined {
  const stat = readProcSync(`/proc/${pid}/stat`);
  if (stat !== undefined) {
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (the state); starttime is field 22.
    const start = fields[19];
    return start === undefined ? undefined : `proc:${start}`;
  }
  if (process.platform === 'linux') return undefined;
  try {
    const out = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8' });
    return out.trim() === '' ? undefined : `ps:${out.trim()}`;
  } catch {
    return undefined;
  }
}

/** Whether the live process `record.pid` is the one the record was written for. */
export function isRecordedProcess(record: ProcessRecord): boolean {
  if (!isAlive(record.pid)) return false;
  if (record.startedAt !== undefined) return processIdentity(record.pid) === record.startedAt;
  if (record.match !== undefined) return (commandLine(record.pid) ?? '').includes(record.match);
  return false;
}

/** The command line of a process, or undefined when it cannot be read. */
export function commandLine(pid: number): string | undefined {
  return readProcSync(`/proc/${pid}/cmdline`)?.replace(/\0/g, ' ');
}

/**
 * Stops processes that a leaseproof process started and could not stop because it was killed:
 * records whose owner is gone. Continues a stopped process before signalling it, waits up to
 * `graceMs` for a clean stop, then SIGKILLs; deletes recorded temporary folders.
 */
export async function reapLeftovers(graceMs = 5_000): Promise<ReapedProcess[]> {
  const reaped: ReapedProcess[] = [];
  for (const record of await listProcessRecords()) {
    // A live owner (this process included) still manages its processes itself.
    if (isAlive(record.ownerPid)) continue;
    const ours = isRecordedProcess(record);
    if (ours) await stopProcess(record.pid, record.stopSignal, graceMs);
    if (record.removeDir !== undefined) {
      await rm(record.removeDir, { recursive: true, force: true });
    }
    await forgetProcess(record);
    reaped.push({ record, outcome: ours ? 'stopped' : 'gone' });
  }
  return reaped;
}

/** SIGCONT, then `signal`, then SIGKILL after `graceMs`; resolves once the pid is gone. */
export async function stopProcess(
  pid: number,
  signal: NodeJS.Signals,
  graceMs: number,
): Promise<void> {
  const send = (s: NodeJS.Signals): void => {
    try {
      process.kill(pid, s);
    } catch {
      // Gone already.
    }
  };
  send('SIGCONT');
  send(signal);
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(50);
  if (isAlive(pid)) {
    send('SIGKILL');
    while (isAlive(pid)) await sleep(20);
  }
}
