// ECharts is not bundled into the script: the page loads the report folder's one copy with a
// `<script src>` (see ../echarts-asset.ts), which defines this global before the script runs.
declare const echarts: typeof import('echarts');
