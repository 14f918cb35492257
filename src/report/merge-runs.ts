/**
 * `leaseproof merge`: the shards' run folders (from a CI matrix's artifacts, a Kubernetes
 * volume) into one run folder — verdict.json, summary.md, junit.xml, every scenario's history
 * and timeline, and the copy of ECharts the timelines load — and the reports index. The shard
 * folders are read, never changed.
 */
import { copyFile, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { ConfigError } from '../errors.js';
import { newRunId } from '../env/run-id.js';
import { writeEchartsAsset } from './echarts-asset.js';
import { renderJunit } from './junit-xml.js';
import { planMerge, type MergePlan, type ShardRun } from './merge-plan.js';
import { updateReportIndex } from './report-index.js';
import { renderSummary } from './summary-markdown.js';
import { renderVerdictJson } from './verdict-json.js';
import { VERDICT_VERSION, type VerdictFile } from './verdict-types.js';

/** What `mergeRuns` wrote. */
export interface MergeResult extends MergePlan {
  /** The merged run's folder. */
  dir: string;
  /** The reports index it was added to. */
  index: string;
}

// Deep enough for `artifacts/<name>/<reports>/<run id>`; run folders are never nested in runs.
const MAX_DEPTH = 4;

/**
 * Finds the run folders under `inputs` (a folder holding verdict.json is one; any other folder
 * is searched), merges them (see merge-plan.ts) and writes the merged run into `<out>/<runId>/`.
 * Folders under `out` and runs that are themselves merges are skipped, so merging the same
 * reports folder twice does not merge the first merge back in.
 */
export async function mergeRuns(inputs: readonly string[], out: string): Promise<MergeResult> {
  const outDir = resolve(out);
  const folders: string[] = [];
  for (const input of inputs) {
    const found = await findRunFolders(resolve(input), outDir, 0);
    if (found.length === 0) {
      throw new ConfigError(`no run folder (one holding verdict.json) in ${resolve(input)}`);
    }
    folders.push(...found);
  }
  const runs: ShardRun[] = [];
  for (const dir of [...new Set(folders)]) {
    const verdict = await readVerdict(dir);
    if (verdict.mergedFrom === undefined) runs.push({ dir, verdict });
  }
  const runId = newRunId();
  const plan = planMerge(runs, runId);
  const dir = join(outDir, runId);
  await mkdir(dir, { recursive: true });
  // The copied timelines load ECharts from beside them (shards of one plan run one leaseproof,
  // so this one's copy is theirs too); those of an older shard carry it inline and ignore it.
  await writeEchartsAsset(dir);
  for (const s of plan.scenarios) {
    await copyInto(s.fromDir, s.fromFiles.history, dir, s.verdict.files.history);
    await copyInto(s.fromDir, s.fromFiles.timeline, dir, s.verdict.files.timeline);
  }
  await writeFile(join(dir, 'verdict.json'), renderVerdictJson(plan.verdict));
  await writeFile(join(dir, 'summary.md'), renderSummary(plan.verdict));
  await writeFile(join(dir, 'junit.xml'), renderJunit(plan.verdict));
  const index = await updateReportIndex(outDir);
  return { ...plan, dir, index };
}

async function findRunFolders(dir: string, outDir: string, depth: number): Promise<string[]> {
  const info = await stat(dir).catch(() => undefined);
  if (info === undefined) throw new ConfigError(`merge: no such folder ${dir}`);
  if (!info.isDirectory()) throw new ConfigError(`merge takes folders; ${dir} is a file`);
  if (isInside(dir, outDir) && depth > 0) return [];
  if (await exists(join(dir, 'verdict.json'))) return [dir];
  if (depth >= MAX_DEPTH) return [];
  const entries = await readdir(dir, { withFileTypes: true });
  const found: string[] = [];
  for (const entry of entries
    .filter((e) => e.isDirectory())
    .sort((a, b) => a.name.localeCompare(b.name))) {
    found.push(...(await findRunFolders(join(dir, entry.name), outDir, depth + 1)));
  }
  return found;
}

async function readVerdict(dir: string): Promise<VerdictFile> {
  const file = join(dir, 'verdict.json');
  let verdict: VerdictFile;
  try {
    verdict = JSON.parse(await readFile(file, 'utf8')) as VerdictFile;
  } catch (error) {
    throw new ConfigError(`${file}: not readable JSON (${String(error)})`);
  }
  if (verdict.verdictVersion !== VERDICT_VERSION || !Array.isArray(verdict.scenarios)) {
    throw new ConfigError(
      `${file}: verdict version ${String(verdict.verdictVersion)}, expected ${VERDICT_VERSION} ` +
        'with a scenarios list (made by another leaseproof?)',
    );
  }
  return verdict;
}

async function copyInto(fromDir: string, name: string, toDir: string, as: string): Promise<void> {
  const from = join(fromDir, name);
  // A verdict names its files; one that points outside its folder is not followed.
  if (!isInside(from, fromDir) || from === fromDir) {
    throw new ConfigError(`${fromDir}/verdict.json names a file outside its folder: "${name}"`);
  }
  await copyFile(from, join(toDir, as)).catch((error: unknown) => {
    throw new ConfigError(
      `${from}: the shard's verdict.json lists it but it cannot be copied (${String(error)})`,
    );
  });
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep) && rel !== '..');
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
