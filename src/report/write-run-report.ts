/**
 * Writes a run's whole report into its folder: per scenario its history (JSONL) and timeline
 * (HTML); for the run verdict.json, summary.md, junit.xml and the one copy of ECharts the
 * timelines share (assets/echarts.min.js). The formats are built from the verdict file's
 * data, so they cannot disagree with each other.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { writeHistory } from '../history/jsonl.js';
import { assetSrc, writeEchartsAsset } from './echarts-asset.js';
import { renderJunit } from './junit-xml.js';
import { scenarioNames } from './scenario-labels.js';
import { renderSummary } from './summary-markdown.js';
import { buildTimelineData } from './timeline-data.js';
import { renderTimelineHtml } from './timeline-html.js';
import type { RunReport, RunReportPaths } from './types.js';
import { buildVerdict, renderVerdictJson, scenarioFiles } from './verdict-json.js';

/**
 * Writes every report file of `run` into `dir` (created if missing; files of the same names
 * are replaced) and returns their paths. It does not touch the reports index: call
 * `updateReportIndex` on the parent folder after it.
 */
export async function writeRunReport(dir: string, run: RunReport): Promise<RunReportPaths> {
  const root = resolve(dir);
  await mkdir(root, { recursive: true });
  const names = scenarioNames(run.scenarios, run.plan?.names);
  const verdict = buildVerdict(run, names);
  const echarts = await writeEchartsAsset(root);
  const scenarios = [];
  for (const [i, s] of run.scenarios.entries()) {
    const { label, stem } = names[i]!;
    const files = scenarioFiles(stem);
    const history = join(root, files.history);
    const timeline = join(root, files.timeline);
    await writeHistory(history, s.history);
    const data = buildTimelineData(s.history, s.result, label, s.incident);
    await writeFile(timeline, renderTimelineHtml(data, assetSrc(timeline, echarts)));
    scenarios.push({ label, history, timeline });
  }
  const paths: RunReportPaths = {
    dir: root,
    verdict: join(root, 'verdict.json'),
    summary: join(root, 'summary.md'),
    junit: join(root, 'junit.xml'),
    echarts,
    scenarios,
  };
  await writeFile(paths.verdict, renderVerdictJson(verdict));
  await writeFile(paths.summary, renderSummary(verdict));
  await writeFile(paths.junit, renderJunit(verdict));
  return paths;
}
