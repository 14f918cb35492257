// The timeline page's script is bundled from src/report/browser/, which imports the fault-kind
// table: a kind's colour is written there and nowhere else, so every one must reach the page —
// in the bundle, and on the band the page draws for a fault of that kind.
import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../src/checker/index.js';
import { FAULT_KIND_TABLE, FAULT_KINDS } from '../../src/faults/fault-kinds.js';
import { buildTimelineData } from '../../src/report/timeline-data.js';
import { renderTimelineHtml } from '../../src/report/timeline-html.js';
import { bundleTimelineScript } from '../../src/report/timeline-script.js';
import type { TimelineData, TimelineFault } from '../../src/report/timeline-types.js';
import { runPageScripts } from '../support/page-script.js';
import { oddStaleAck } from './fixtures.js';

/** What a custom series' renderItem returns, as far as a fault band goes. */
interface Band {
  children: { style: { fill?: string } }[];
}

/** The page of a run with one fault of every kind, each over the first lane. */
function everyKindPage(): { html: string; data: TimelineData } {
  const history = oddStaleAck();
  const base = buildTimelineData(history, checkHistory(history));
  const faults = FAULT_KINDS.map((fault, i): TimelineFault => ({
    lane: 0,
    fault,
    target: 'w1',
    id: `f${i + 1}`,
    start: 10 * i,
    end: 10 * i + 5,
    open: false,
    detail: '',
  }));
  const data = { ...base, faults };
  return { html: renderTimelineHtml(data), data };
}

describe("the timeline page's script", () => {
  it('is one self-contained IIFE that the page can inline', () => {
    const script = bundleTimelineScript();
    expect(script).toMatch(/^"use strict";\n\(\(\) => \{/);
    expect(script.trimEnd()).toMatch(/\}\)\(\);$/);
    expect(script).not.toMatch(/<\/script/i);
    // ECharts (about 1 MB) is the global the page loads beside it, not part of it.
    expect(script.length).toBeLessThan(100_000);
  });

  it('carries the colour of every fault kind in the table', () => {
    const script = bundleTimelineScript();
    for (const kind of FAULT_KINDS) {
      expect(script, kind).toContain(`"${FAULT_KIND_TABLE[kind].colour}"`);
    }
  });

  it("draws each fault kind's band in the table's colour", () => {
    const { html, data } = everyKindPage();
    const [chart] = runPageScripts(html);
    const option = chart!.options[0] as {
      series: { name: string; renderItem?: (params: unknown, api: unknown) => Band }[];
    };
    const faults = option.series.find((s) => s.name === 'faults')!;
    const params = (dataIndex: number) => ({
      dataIndex,
      coordSys: { x: 0, y: 0, width: 1000, height: 400 },
    });
    const api = { coord: ([x, y]: [number, number]) => [x * 2, y * 40] };
    const fills = data.faults.map((_, i) => faults.renderItem!(params(i), api).children[0]!.style);
    expect(fills.map((s) => s.fill)).toEqual(FAULT_KINDS.map((k) => FAULT_KIND_TABLE[k].colour));
  });
});
