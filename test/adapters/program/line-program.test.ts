import { describe, expect, it, vi } from 'vitest';
import { LineProgram } from '../../../src/libraries/program/line-program.js';

// Real child processes (Node, so no other toolchain is needed) speaking JSON lines, each one
// wrong in one way the controller must turn into a clear error instead of a hang or a verdict.
const node = (source: string) => [process.execPath, '-e', source];

const ECHO = `
  const rl = require('node:readline').createInterface({ input: process.stdin });
  rl.on('line', (line) => {
    const r = JSON.parse(line);
    if (r.op === 'sleep') return; // never answers
    if (r.op === 'garbage') return process.stdout.write('hello there\\n');
    if (r.op === 'die') { process.stderr.write('about to die\\n'); process.exit(3); }
    if (r.op === 'fail') return process.stdout.write(JSON.stringify({ id: r.id, error: 'refused: no such job' }) + '\\n');
    process.stdout.write(JSON.stringify({ id: r.id, ok: { pid: process.pid, echo: r.value }, pid: 77 }) + '\\n');
  });`;

describe('LineProgram', () => {
  it('answers requests in order, with the backend pid the program reported', async () => {
    const program = new LineProgram({ command: node(ECHO), label: 'echo' });
    const answers = await Promise.all(
      [1, 2, 3].map((value) => program.request({ op: 'echo', value }, 5_000)),
    );
    expect(answers.map((a) => (a.ok as { echo: number }).echo)).toEqual([1, 2, 3]);
    expect(answers.every((a) => a.pid === 77)).toBe(true);
    // In a process group (and session) of its own: a terminal's Ctrl-C does not reach it.
    const child = (answers[0]?.ok as { pid: number }).pid;
    expect(() => process.kill(-child, 0)).not.toThrow();
    program.stop();
    program.stop(); // idempotent
    await expect(program.request({ op: 'echo' }, 1_000)).rejects.toThrow(/echo was stopped/);
  });

  it('an error answer rejects with its text', async () => {
    const program = new LineProgram({ command: node(ECHO), label: 'echo' });
    await expect(program.request({ op: 'fail' }, 5_000)).rejects.toThrow(
      'echo: refused: no such job',
    );
    program.stop();
  });

  it('a request past its bound is failed, the program killed, and the next call starts a fresh one', async () => {
    const program = new LineProgram({ command: node(ECHO), label: 'echo' });
    const first = await program.request({ op: 'echo', value: 1 }, 5_000);
    await expect(program.request({ op: 'sleep' }, 300)).rejects.toThrow(
      /no answer to "sleep" within 300 ms \(the program was stopped/,
    );
    const next = await program.request({ op: 'echo', value: 2 }, 5_000);
    expect((next.ok as { pid: number }).pid).not.toBe((first.ok as { pid: number }).pid);
    await vi.waitFor(() =>
      expect(() => process.kill((first.ok as { pid: number }).pid, 0)).toThrow(),
    );
    program.stop();
  });

  it('a line on stdout that is not JSON is a protocol error naming the line', async () => {
    const program = new LineProgram({ command: node(ECHO), label: 'echo' });
    await expect(program.request({ op: 'garbage' }, 5_000)).rejects.toThrow(
      /echo wrote a line that is not JSON on stdout: hello there/,
    );
    program.stop();
  });

  it('a program that exits fails its request with its exit and last stderr lines', async () => {
    const program = new LineProgram({ command: node(ECHO), label: 'echo' });
    await expect(program.request({ op: 'die' }, 5_000)).rejects.toThrow(
      /echo exited \(code 3\); its last stderr lines:\nabout to die/,
    );
    program.stop();
  });

  it('a command that does not exist says so', async () => {
    const program = new LineProgram({ command: ['/nonexistent/queue-program'], label: 'missing' });
    await expect(program.request({ op: 'describe' }, 5_000)).rejects.toThrow(
      /missing could not start: spawn \/nonexistent\/queue-program ENOENT/,
    );
  });
});
