// The build's second step, after tsc: writes the timeline page's browser script, bundled, into
// dist/report/, where the compiled timeline-script.js reads it; the installed package then never
// runs esbuild. Usage: node --import tsx scripts/bundle-timeline.ts [outDir, default dist]
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TIMELINE_BUNDLE_FILE, bundleTimelineScript } from '../src/report/timeline-script.js';

const outDir = process.argv[2] ?? 'dist';
writeFileSync(join(outDir, 'report', TIMELINE_BUNDLE_FILE), bundleTimelineScript());
