/** The timeline page's stylesheet, inlined into it (the page loads only its folder's ECharts). */
export const TIMELINE_STYLE = `
:root { color-scheme: light; --red: #d50000; --amber: #ffa000; --ink: #1f2933; --muted: #5f6b7a; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; color: var(--ink); background: #fafbfc; }
header, section { padding: 0 24px; }
header { padding-top: 16px; border-bottom: 1px solid #e3e7ec; background: #fff; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 16px 0 6px; }
.meta { color: var(--muted); margin: 0 0 10px; }
.verdict { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 13px; vertical-align: middle; color: #fff; }
.verdict-valid { background: #2e7d32; } .verdict-invalid { background: var(--red); } .verdict-unknown { background: #616161; }
.checkers { list-style: none; display: flex; flex-wrap: wrap; gap: 6px; padding: 0; margin: 0 0 12px; }
.chip { border-radius: 12px; padding: 2px 10px; font-size: 12px; border: 1px solid; cursor: default; }
.chip.valid { border-color: #a5d6a7; background: #e8f5e9; } .chip.warned { border-color: #ffe082; background: #fff8e1; }
.chip.invalid { border-color: var(--red); background: #ffebee; font-weight: 600; } .chip.unknown { border-color: #9e9e9e; background: #eeeeee; }
.chip.na { border-color: #cfd8dc; background: #fafafa; color: #607d8b; }
.violation-list, .warning-list { margin: 0 0 8px; padding-left: 22px; }
.violation-list li, .warning-list li { margin: 2px 0; padding: 1px 4px; border-radius: 4px; }
.violation-list li.focused, .warning-list li.focused { background: #ffebee; }
.violation-list a { color: var(--red); } .warning-list a { color: #a15c00; }
.inv { font-weight: 600; }
.none { color: #2e7d32; }
#chart-wrap { position: relative; margin: 8px 12px; background: #fff; border: 1px solid #e3e7ec; border-radius: 6px; }
#chart { width: 100%; min-height: 260px; }
#markers { position: absolute; inset: 0; pointer-events: none; overflow: hidden; }
.marker { position: absolute; width: 26px; height: 26px; margin: -13px 0 0 -13px; border-radius: 50%; border: 2px solid var(--red); }
.marker.warning-marker { border-color: var(--amber); border-style: dashed; }
.marker.focused { animation: pulse 1s ease-in-out 4; box-shadow: 0 0 0 4px rgba(213, 0, 0, 0.25); }
@keyframes pulse { 50% { transform: scale(1.6); } }
#details { margin: 0 12px 12px; padding: 8px 16px; background: #fff; border: 1px solid #f5c2c2; border-radius: 6px; }
#details h2 { margin-top: 6px; }
.db { color: var(--muted); font-size: 12px; }
.key { color: var(--muted); font-size: 12px; padding-bottom: 24px; }
.swatch { display: inline-block; width: 18px; height: 9px; margin: 0 4px 0 10px; vertical-align: middle; border: 1px solid #263238; }
`;
