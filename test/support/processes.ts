import { readFileSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from '../../src/env/process-registry.js';

/** A process in the process table. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Its process group: what a terminal's Ctrl-C signals as a whole. */
  pgid: number;
  state: string;
  command: string;
}

/** Reads the whole process table from /proc (the truth, not what the harness believes). */
export function processTable(): ProcessInfo[] {
  const table: ProcessInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const command = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      table.push({
        pid: Number(name),
        state: after[0] ?? '?',
        ppid: Number(after[1]),
        pgid: Number(after[2]),
        command,
      });
    } catch {
      // Exited while we read.
    }
  }
  return table;
}

/** Every live descendant of `pid` (children, their children, …). */
export function descendantsOf(pid: number): ProcessInfo[] {
  const table = processTable();
  const found: ProcessInfo[] = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    const next = table.filter((p) => frontier.includes(p.ppid) && p.state !== 'Z');
    found.push(...next);
    frontier = next.map((p) => p.pid);
  }
  return found;
}

/** Waits until none of `pids` is alive, or throws after `timeoutMs`. */
export async function waitGone(pids: number[], timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(isAlive)) {
    if (Date.now() > deadline) {
      throw new Error(`still alive after ${timeoutMs}ms: ${pids.filter(isAlive).join(', ')}`);
    }
    await sleep(50);
  }
}

/** The live servers (postgres, toxiproxy-server) in the process table whose command mentions `marker`. */
export function serversMatching(marker: string): ProcessInfo[] {
  return processTable().filter(
    (p) => p.state !== 'Z' && p.command.includes(marker) && /postgres|toxiproxy/.test(p.command),
  );
}
