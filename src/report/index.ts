/**
 * Reports: what a run leaves behind, in `reports/<run id>/`. A run is one or more scenarios,
 * each run against one queue, each with a history on the database clock and the checkers'
 * verdict on it. From those the report writers make — and never re-judge — the run's files:
 * per scenario its history (`<scenario>.history.jsonl.gz`, gzip: `zcat` reads it) and an offline HTML timeline
 * (`<scenario>.timeline.html`: worker lanes, claim bars, heartbeats, expiries, acks, effects,
 * fault bands, violations linked from the verdict), which share one copy of ECharts
 * (`assets/echarts.min.js`); for the run `verdict.json` (versioned, typed in
 * `verdict-types.ts`), `summary.md` and `junit.xml`; and `reports/index.html` over every run
 * folder present.
 */
export type {
  RunReport,
  ScenarioRun,
  RunEnvironment,
  RunReportPaths,
  ScenarioReportPaths,
} from './types.js';
export {
  VERDICT_VERSION,
  type VerdictFile,
  type ScenarioVerdict,
  type CheckerVerdict,
  type VerdictEnvironment,
  type ScenarioFiles,
} from './verdict-types.js';
export { writeRunReport } from './write-run-report.js';
export { updateReportIndex } from './report-index.js';
export { buildVerdict, renderVerdictJson, worstVerdict } from './verdict-json.js';
export { renderSummary } from './summary-markdown.js';
export { renderJunit } from './junit-xml.js';
export { buildTimelineData } from './timeline-data.js';
export { renderTimelineHtml } from './timeline-html.js';
export { ECHARTS_ASSET, writeEchartsAsset, assetSrc } from './echarts-asset.js';
export { scenarioNames, type ScenarioNames } from './scenario-labels.js';
export type { TimelineData } from './timeline-types.js';
