import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../src/checker/index.js';
import { buildTimelineData } from '../../src/report/timeline-data.js';
import { renderTimelineHtml } from '../../src/report/timeline-html.js';
import type { TimelineData } from '../../src/report/timeline-types.js';
import { cleanRun } from '../checker/fixtures/anomalies.js';
import { runPageScripts } from '../support/page-script.js';
import { oddStaleAck, renamed } from './fixtures.js';

function page(history = oddStaleAck()): { html: string; data: TimelineData } {
  const data = buildTimelineData(history, checkHistory(history));
  return { html: renderTimelineHtml(data), data };
}

describe('timeline.html', () => {
  it('renders a violation marker element and a link to it for each violation', () => {
    const { html, data } = page();
    expect(data.markers.map((m) => m.id)).toEqual(['v-no-stale-ack-1']);
    expect(html).toContain('<div class="violation marker" id="v-no-stale-ack-1"');
    expect(html).toMatch(/<a href="#v-no-stale-ack-1" data-marker="v-no-stale-ack-1">/);
    expect(html).toMatch(/<h2>Violations \(1\)<\/h2>/);
    expect(html.match(/class="violation marker"/g)).toHaveLength(1);
  });

  it('says so when there is nothing to show', () => {
    const { html } = page(cleanRun());
    expect(html).toContain('No violations.');
    expect(html).not.toContain('class="violation marker"');
  });

  it("loads only the run folder's ECharts, by a relative path; style, script and data are inline", () => {
    const { html } = page();
    expect([...html.matchAll(/<script[^>]*\ssrc="([^"]*)"/g)].map((m) => m[1])).toEqual([
      'assets/echarts.min.js',
    ]);
    expect(renderTimelineHtml(page().data, '../assets/echarts.min.js')).toContain(
      '<script src="../assets/echarts.min.js"></script>',
    );
    expect(/<link[^>]+href=/i.test(html), 'a linked stylesheet').toBe(false);
    expect(/url\(\s*['"]?https?:|@import/i.test(html), 'a style from the network').toBe(false);
    expect(html.length).toBeLessThan(100_000); // the library is not in the page
  });

  it('escapes odd strings: no string from the history can close the data element or inject markup', () => {
    const { html, data } = page();
    // Exactly the page's own three script elements close; the `</script>` in the job id
    // does not.
    expect(html.match(/<\/script>/g)).toHaveLength(3);
    expect(html).toContain(
      '<title>odd &lt;&amp;&quot;&#39;&gt; \u0001 &lt;/script&gt; [unconditional-ack]',
    );
    expect(html).toContain('job job&lt;&amp;&quot;&#39;&gt;');
    // The inlined data parses back to exactly what was built.
    const json = /<script type="application\/json" id="timeline-data">(.*?)<\/script>/s.exec(
      html,
    )![1]!;
    expect(JSON.parse(json)).toEqual(data);
  });

  it('names the queue once in the title, also when the label carries it (a name run on two queues)', () => {
    const history = renamed(cleanRun(), 'pause-past-lease', 'unconditional-ack');
    for (const label of ['pause-past-lease', 'pause-past-lease [unconditional-ack]']) {
      const html = renderTimelineHtml(buildTimelineData(history, checkHistory(history), label));
      const title = /<title>(.*?)<\/title>/.exec(html)![1];
      expect(title).toBe('pause-past-lease [unconditional-ack] — leaseproof timeline');
      expect(/<h1>(.*?) <span/.exec(html)![1]).toBe('pause-past-lease [unconditional-ack]');
    }
    // A label that merely contains another queue's name in brackets still gets its own.
    const other = buildTimelineData(history, checkHistory(history), 'odd [reference]');
    expect(renderTimelineHtml(other)).toContain('<title>odd [reference] [unconditional-ack]');
  });

  it('opens on the whole run, with x labels that cannot collide and a legend clear of the grid', () => {
    const charts = runPageScripts(page().html);
    expect(charts.map((c) => c.element)).toEqual(['chart']);
    const option = charts[0]!.options[0] as {
      dataZoom: Record<string, unknown>[];
      xAxis: { nameGap: number; axisLabel: { hideOverlap: boolean } };
      legend: { type: string; top: number };
      grid: { top: number; bottom: number };
    };
    for (const zoom of option.dataZoom) {
      expect(zoom).toMatchObject({ start: 0, end: 100 });
      expect(zoom).not.toHaveProperty('startValue');
    }
    expect(option.xAxis.axisLabel.hideOverlap).toBe(true);
    // One legend row (it scrolls) above the grid; below it, the axis name clears the slider.
    expect(option.legend).toMatchObject({ type: 'scroll', top: 4 });
    expect(option.grid.top).toBeGreaterThanOrEqual(48);
    const slider = option.dataZoom.find((z) => z.type === 'slider') as {
      bottom: number;
      height: number;
    };
    expect(option.xAxis.nameGap + 16).toBeLessThanOrEqual(
      option.grid.bottom - slider.bottom - slider.height,
    );
  });
});
