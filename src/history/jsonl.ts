/**
 * Histories as JSONL: the header on the first line, then one event per line in `t` order, the
 * `end` event last. Both directions stream — a history can hold a million events, and neither a
 * million-line string nor a whole file in memory is needed to move it.
 *
 * A name ending in `.gz` is written gzip-compressed (reports do this: a history's lines repeat
 * the same keys, so it shrinks about tenfold — `zcat` reads it back). Reading looks at the
 * bytes, not the name: a gzip file reads whatever it is called, and so does plain text.
 *
 * A file whose writer died early has no `end` event, and perhaps half a last line. It still
 * reads: the half line is dropped, and the missing `end` is how a reader (and the checkers,
 * which then say `unknown`) can tell; `historyEnd` asks. Anything else that is wrong — a line
 * that is not JSON, no header, another major version, an unknown event type, a missing field,
 * events out of order — is a `HistoryFileError` naming the file and the line. A gzip file cut
 * short the same way reads the same way: what was flushed is kept.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createGunzip, createGzip } from 'node:zlib';
import { HistoryFileError } from './history-errors.js';
import { asEvent, asHeader, eventProblem, headerProblem } from './history-shape.js';
import type { EndEvent, History, HistoryEvent, HistoryHeader } from './types.js';

/** Lines per write: large enough that writes are few, small enough that memory stays flat. */
const LINES_PER_CHUNK = 1_000;

/** The two bytes every gzip stream starts with (RFC 1952). */
const GZIP_MAGIC = [0x1f, 0x8b] as const;

/**
 * Writes `history` to `file` (replacing it), one JSON line per event after the header;
 * gzip-compressed when `file` ends with `.gz`.
 */
export async function writeHistory(file: string, history: History): Promise<void> {
  function* chunks(): Generator<string> {
    yield `${JSON.stringify(history.header)}\n`;
    const { events } = history;
    for (let i = 0; i < events.length; i += LINES_PER_CHUNK) {
      let chunk = '';
      const end = Math.min(events.length, i + LINES_PER_CHUNK);
      for (let j = i; j < end; j += 1) chunk += `${JSON.stringify(events[j])}\n`;
      yield chunk;
    }
  }
  const out = createWriteStream(file);
  if (file.endsWith('.gz')) await pipeline(Readable.from(chunks()), createGzip(), out);
  else await pipeline(Readable.from(chunks()), out);
}

/** The `end` event of a history, or undefined when the history was cut short. */
export function historyEnd(history: History): EndEvent | undefined {
  const last = history.events[history.events.length - 1];
  return last?.type === 'end' ? last : undefined;
}

/** Reads a history written by `writeHistory` (or cut short while being written), plain or gzip. */
export async function readHistory(file: string): Promise<History> {
  const reader = new HistoryLines(file);
  try {
    // Looked at before the read stream exists: a missing file then fails here, once.
    const gzip = await isGzip(file);
    const raw = createReadStream(file);
    const text: Readable = gzip ? raw.pipe(gunzip(raw)) : raw;
    text.setEncoding('utf8');
    for await (const line of splitLines(text)) {
      reader.take(line.text, line.terminated);
    }
  } catch (error) {
    if (error instanceof HistoryFileError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new HistoryFileError(file, 0, `cannot be read: ${message}`, { cause: error });
  }
  return reader.history();
}

/** Whether `file` starts with gzip's magic bytes. */
async function isGzip(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === GZIP_MAGIC[0] && buffer[1] === GZIP_MAGIC[1];
  } finally {
    await handle.close();
  }
}

/**
 * A gunzip stream that passes on `raw`'s read errors. A cut-short gzip file has no trailer; a
 * sync flush at its end yields what it holds instead of failing with "unexpected end of file".
 */
function gunzip(raw: Readable): Transform {
  const stream = createGunzip({ finishFlush: constants.Z_SYNC_FLUSH });
  raw.on('error', (error) => stream.destroy(error));
  return stream;
}

/** Parses and checks one line after another. */
class HistoryLines {
  private header: HistoryHeader | undefined;
  private readonly events: HistoryEvent[] = [];
  private line = 0;
  private lastT = -Infinity;
  private ended = false;

  constructor(private readonly file: string) {}

  take(text: string, terminated: boolean): void {
    this.line += 1;
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      // Half a line at the very end: the writer stopped in the middle of it.
      if (!terminated && this.header !== undefined) return;
      const why = error instanceof Error ? error.message : String(error);
      throw this.error(`not JSON (${why})`);
    }
    if (this.header === undefined) {
      const problem = headerProblem(value);
      if (problem !== undefined) throw this.error(problem);
      this.header = asHeader(value);
      return;
    }
    const problem = eventProblem(value);
    if (problem !== undefined) throw this.error(problem);
    const event = asEvent(value);
    if (this.ended) throw this.error(`${event.type} event after the end event`);
    if (event.t < this.lastT) {
      throw this.error(
        `${event.type} event at t=${event.t} is earlier than the event before it ` +
          `(t=${this.lastT}): events must be ordered by t`,
      );
    }
    this.lastT = event.t;
    this.ended = event.type === 'end';
    this.events.push(event);
  }

  history(): History {
    if (this.header === undefined) {
      throw new HistoryFileError(this.file, 1, 'the file is empty: expected a history header');
    }
    return { header: this.header, events: this.events };
  }

  private error(problem: string): HistoryFileError {
    return new HistoryFileError(this.file, this.line, problem);
  }
}

/** Splits a text stream into lines, saying whether each ended with a newline. */
async function* splitLines(
  chunks: AsyncIterable<string>,
): AsyncGenerator<{ text: string; terminated: boolean }> {
  let rest = '';
  for await (const chunk of chunks) {
    rest += chunk;
    let start = 0;
    for (let nl = rest.indexOf('\n'); nl !== -1; nl = rest.indexOf('\n', start)) {
      yield { text: rest.slice(start, nl).replace(/\r$/, ''), terminated: true };
      start = nl + 1;
    }
    rest = rest.slice(start);
  }
  if (rest !== '') yield { text: rest, terminated: false };
}
