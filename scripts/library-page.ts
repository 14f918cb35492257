// `npm run library-page -- <library> [--parallel N]`: builds dist/ from the tree, runs the
// curated suite against every queue of a library's page (src/libraries/library-pages.ts), then writes
// docs/libraries/<library>.md from that run — its provenance, settings, verdicts and evidence —
// followed by the hand-written part kept in the library's room (src/libraries/<library>/page.md).
// `--from <report-dir>` writes the page from an earlier run instead (its command and commit must
// then be given: `--command "…" --commit abc1234`). `all` runs every library, one after another.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parseArgs } from 'node:util';
import { LIBRARY_PAGES, libraryPage } from '../src/libraries/library-pages.js';
import { pinnedVersions } from './pinned-versions.js';
import type { QueueTermsRecord } from '../src/history/types.js';
import {
  libraryIndexMarkdown,
  libraryPageMarkdown,
  pageSummary,
  type PageSummary,
  type PageVerdictJson,
} from '../src/report/library-page.js';

const ROOT = join(import.meta.dirname, '..');
const OUT = 'reports/library-pages';

function read(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
}

function newestRun(dir: string): string {
  const runs = readdirSync(join(ROOT, dir))
    .map((name) => join(dir, name))
    .filter((p) => statSync(join(ROOT, p)).isDirectory() && /\d{8}t\d{6}_/.test(p));
  runs.sort((a, b) => statSync(join(ROOT, b)).mtimeMs - statSync(join(ROOT, a)).mtimeMs);
  const run = runs[0];
  if (run === undefined) throw new Error(`no run folder in ${dir}`);
  return run;
}

/** Each run's queue terms (from its history's header), by `scenario|queue`. */
function headers(
  reportDir: string,
  verdict: PageVerdictJson,
): Map<string, QueueTermsRecord | undefined> {
  const out = new Map<string, QueueTermsRecord | undefined>();
  const files = (verdict as unknown as { scenarios: { files?: { history?: string } }[] }).scenarios;
  verdict.scenarios.forEach((s, i) => {
    const history = files[i]?.files?.history;
    if (history === undefined) return;
    const text = gunzipSync(readFileSync(join(ROOT, reportDir, history))).toString('utf8');
    const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as {
      queueTerms?: QueueTermsRecord;
    };
    out.set(`${s.name}|${s.queue}`, header.queueTerms);
  });
  return out;
}

function writePage(key: string, reportDir: string, command: string, commit: string): void {
  const page = libraryPage(key)!;
  const verdict = JSON.parse(read(join(reportDir, 'verdict.json'))) as PageVerdictJson;
  const notes = readFileSync(page.notes, 'utf8');
  const provenance = {
    key,
    title: page.title,
    versions: pinnedVersions(),
    commit,
    command,
    reportDir,
  };
  const markdown = libraryPageMarkdown(provenance, verdict, headers(reportDir, verdict), notes);
  mkdirSync(join(ROOT, 'docs/libraries'), { recursive: true });
  const file = join(ROOT, 'docs/libraries', `${key}.md`);
  writeFileSync(file, markdown);
  writeFileSync(
    join(ROOT, 'docs/libraries', `${key}.json`),
    `${JSON.stringify(pageSummary(provenance, verdict), null, 2)}\n`,
  );
  process.stderr.write(`wrote ${relative(ROOT, file)} from ${reportDir}\n`);
  writeIndex();
}

/** docs/libraries/README.md, from every page's summary that exists. */
function writeIndex(): void {
  const summaries: PageSummary[] = [];
  for (const page of LIBRARY_PAGES) {
    try {
      summaries.push(JSON.parse(read(`docs/libraries/${page.key}.json`)) as PageSummary);
    } catch {
      // No page yet for this library: the index lists the pages there are.
    }
  }
  writeFileSync(join(ROOT, 'docs/libraries/README.md'), libraryIndexMarkdown(summaries));
}

function runAndWrite(key: string, parallel: string): void {
  const page = libraryPage(key);
  if (page === undefined) {
    throw new Error(
      `no library page "${key}"; the pages are ${LIBRARY_PAGES.map((p) => p.key).join(', ')}, or all`,
    );
  }
  // The suite runs dist/: build it from this tree first, so that the commit a page names is
  // the code that ran (`+dirty` when the tree had uncommitted changes, built in too).
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed: no page from code not built');
  const dirty = git('status', '--porcelain', '--untracked-files=no') === '' ? '' : '+dirty';
  const commit = `${git('rev-parse', '--short', 'HEAD')}${dirty}`;
  const args = [
    'bin/leaseproof.js',
    'suite',
    ...page.queues.flatMap((q) => ['--queue', q]),
    '--out',
    OUT,
    '--parallel',
    parallel,
  ];
  const command = `node ${args.join(' ')}`;
  process.stderr.write(`${command}\n`);
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  // 0 valid, 1 invalid, 2 unknown: all are runs to publish; anything else is not.
  if (result.status === null || result.status > 2) {
    throw new Error(`the suite ended with ${String(result.status ?? result.signal)}`);
  }
  writePage(key, newestRun(OUT), command, commit);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    parallel: { type: 'string', default: '1' },
    from: { type: 'string' },
    command: { type: 'string' },
    commit: { type: 'string' },
  },
});
const [key] = positionals;
if (key === undefined) {
  process.stderr.write(
    `usage: npm run library-page -- <${LIBRARY_PAGES.map((p) => p.key).join('|')}|all> [--parallel N]\n`,
  );
  process.exit(2);
}
if (values.from !== undefined) {
  if (values.command === undefined || values.commit === undefined) {
    process.stderr.write('--from needs --command and --commit: a page states its provenance\n');
    process.exit(2);
  }
  writePage(key, values.from, values.command, values.commit);
} else {
  for (const page of key === 'all' ? LIBRARY_PAGES : [libraryPage(key) ?? { key }]) {
    runAndWrite(page.key, values.parallel);
  }
}
