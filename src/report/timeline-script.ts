import { FAULT_KIND_TABLE, FAULT_KINDS } from '../faults/fault-kinds.js';

const FAULT_COLOURS = Object.fromEntries(FAULT_KINDS.map((k) => [k, FAULT_KIND_TABLE[k].colour]));

/**
 * The browser side of a timeline page, inlined into it as text. It is a string rather than a
 * module so that the page needs nothing at run time but the run folder's copy of ECharts (no
 * bundler, no file of its own) and so that compiling leaseproof cannot rewrite it: the page runs it exactly as written here. It
 * reads the data from the page's JSON element, draws it with ECharts (lanes as a value axis,
 * claims and fault bands as custom series, point events as scatter series), and keeps the
 * violation markers — elements rendered by the server with ids `v-<checker>-<n>` — positioned
 * over their pins, so links to them work and the list at the top can focus each one. The fault
 * kinds' colours come from their table.
 */
export const TIMELINE_SCRIPT = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('timeline-data').textContent);
  var lanes = data.lanes.length > 0 ? data.lanes : [{ id: '(no workers)', rows: 1 }];
  var nLanes = lanes.length;
  // Room below the grid, top down: tick labels, the axis name, then the zoom slider.
  var GRID = { left: data.incident ? 160 : 96, right: 32, top: 56, bottom: 96 };
  var LANE_PX = 72;

  var CLAIM_COLORS = {
    acked: '#43a047', failed: '#fb8c00', expired: '#e57373', replaced: '#8e24aa', open: '#90a4ae'
  };
  var FAULT_COLORS = ${JSON.stringify(FAULT_COLOURS)};
  var POINTS = [
    { kind: 'heartbeat', name: 'heartbeat (extension)', symbol: 'rect', size: [2, 16], color: '#1b3a1f', z: 3 },
    { kind: 'heartbeat-failed', name: 'heartbeat failed', symbol: 'rect', size: [3, 18], color: '#e53935', z: 4 },
    { kind: 'effect', name: 'effect', symbol: 'circle', size: 7, color: '#fdd835', border: '#5d4037', z: 5 },
    { kind: 'expiry', name: 'expiry', symbol: 'path://M2 0L5 3L8 0L10 2L7 5L10 8L8 10L5 7L2 10L0 8L3 5L0 2Z', size: 12, color: '#b71c1c', z: 6 },
    { kind: 'lost', name: 'worker saw claim lost', symbol: 'triangle', size: 10, color: '#6d4c41', z: 6 },
    { kind: 'abort', name: 'handler aborted', symbol: 'roundRect', size: 9, color: '#37474f', z: 6 },
    { kind: 'release', name: 'released (fail / reap)', symbol: 'emptyCircle', size: 11, color: '#ef6c00', z: 6 },
    { kind: 'ack', name: 'ack committed', symbol: 'diamond', size: 15, color: '#1b5e20', border: '#ffffff', z: 7 },
    { kind: 'ack-rejected', name: 'ack rejected', symbol: 'emptyDiamond', size: 15, color: '#424242', z: 7 },
    { kind: 'ack-indeterminate', name: 'ack indeterminate', symbol: 'diamond', size: 15, color: '#64b5f6', border: '#0d47a1', z: 7 }
  ];

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  function round(ms) { return Math.round(ms * 1000) / 1000; }
  // A replayed incident shows its own clock: the replay's time stretched back by 1 / scale.
  var inc = data.incident;
  function incText(t) {
    var iso = new Date(Math.round(inc.anchorEpochMs + (t - inc.anchorRel) / inc.scale)).toISOString();
    return iso.slice(11, 23);
  }
  function relText(t) { return inc ? incText(t) : '+' + round(t) + 'ms'; }
  function laneName(id) { return inc && inc.names[id] ? id + ' ' + inc.names[id] : id; }
  // The database clock keeps microseconds; a Date keeps milliseconds, so add them by hand.
  function dbText(t) {
    var micros = Math.round((data.startedAt + t) * 1000);
    var whole = Math.floor(micros / 1000);
    var rest = micros - whole * 1000;
    var iso = new Date(whole).toISOString();
    return rest === 0 ? iso : iso.slice(0, -1) + String(rest).padStart(3, '0') + 'Z';
  }
  function when(t) { return relText(t) + ' <span class="db">db ' + dbText(t) + '</span>'; }
  function rowsOf(lane) { return (lanes[lane] && lanes[lane].rows) || 1; }
  function yOf(lane, row) { return lane - 0.4 + (0.8 * (row + 0.5)) / rowsOf(lane); }
  function tip(title, lines) {
    return '<b>' + esc(title) + '</b><br>' + lines.join('<br>');
  }

  var chartEl = document.getElementById('chart');
  chartEl.style.height = GRID.top + GRID.bottom + nLanes * LANE_PX + 'px';
  var chart = echarts.init(chartEl, null, { renderer: 'canvas' });

  function clip(rect, params) {
    return echarts.graphic.clipRectByRect(rect, {
      x: params.coordSys.x, y: params.coordSys.y,
      width: params.coordSys.width, height: params.coordSys.height
    });
  }
  function rectBetween(api, x0, x1, y0, y1, minWidth) {
    var a = api.coord([x0, y0]);
    var b = api.coord([x1, y1]);
    return { x: a[0], y: Math.min(a[1], b[1]), width: Math.max(b[0] - a[0], minWidth), height: Math.abs(b[1] - a[1]) };
  }

  var laneSeries = {
    name: 'lanes', type: 'custom', silent: true, z: 0,
    data: lanes.map(function (_, i) { return [0, data.endT, i]; }),
    encode: { x: [0, 1], y: 2 },
    renderItem: function (params, api) {
      var i = params.dataIndex;
      var top = api.coord([0, i - 0.5])[1];
      var bottom = api.coord([0, i + 0.5])[1];
      // Lane names are drawn here rather than as axis labels: a value axis puts its ticks
      // where it likes, and rows need a value axis (a category axis has no fractions).
      return {
        type: 'group',
        children: [
          {
            type: 'rect',
            shape: { x: params.coordSys.x, y: Math.min(top, bottom), width: params.coordSys.width, height: Math.abs(bottom - top) },
            style: { fill: i % 2 ? '#f3f5f7' : '#ffffff' }
          },
          {
            type: 'text',
            style: { text: laneName(lanes[i].id), x: params.coordSys.x - 10, y: (top + bottom) / 2, align: 'right', verticalAlign: 'middle', fill: '#1f2933', font: 'bold 13px sans-serif' }
          }
        ]
      };
    }
  };

  var faultSeries = {
    name: 'faults', type: 'custom', z: 1, itemStyle: { color: '#a1887f' },
    data: data.faults.map(function (f, i) { return [f.start, f.end, f.lane === null ? -1 : f.lane, i]; }),
    encode: { x: [0, 1], y: 2 },
    renderItem: function (params, api) {
      var f = data.faults[params.dataIndex];
      var y0 = f.lane === null ? -0.5 : f.lane - 0.5;
      var y1 = f.lane === null ? nLanes - 0.5 : f.lane + 0.5;
      var rect = clip(rectBetween(api, f.start, f.end, y0, y1, 3), params);
      if (!rect) return null;
      var color = FAULT_COLORS[f.fault] || '#607d8b';
      return {
        type: 'group',
        children: [
          { type: 'rect', shape: rect, style: { fill: color, opacity: 0.16, stroke: color, lineWidth: 1, lineDash: f.open ? [4, 3] : null } },
          { type: 'text', style: { text: f.fault + (f.lane === null ? ' (database)' : ''), x: rect.x + 4, y: rect.y + 3, fill: color, font: 'bold 11px sans-serif' } }
        ]
      };
    },
    tooltip: {
      formatter: function (p) {
        var f = data.faults[p.dataIndex];
        return tip('fault ' + f.fault + ' on ' + f.target + ' (' + f.id + ')', [
          'from ' + when(f.start), 'to ' + (f.open ? 'the end (never healed in the history)' : when(f.end)),
          f.detail ? esc(f.detail) : ''
        ]);
      }
    }
  };

  var starvedSeries = {
    name: 'starved', type: 'custom', z: 1, itemStyle: { color: '#616161' },
    data: data.starved.map(function (w, i) { return [w.start, w.end, w.lane, i]; }),
    encode: { x: [0, 1], y: 2 },
    renderItem: function (params, api) {
      var w = data.starved[params.dataIndex];
      var rect = clip(rectBetween(api, w.start, w.end, w.lane - 0.5, w.lane + 0.5, 3), params);
      if (!rect) return null;
      var children = [{ type: 'rect', shape: rect, style: { fill: '#616161', opacity: 0.22, stroke: '#616161', lineWidth: 1, lineDash: [2, 2] } }];
      if (rect.width > 60) children.push({ type: 'text', style: { text: 'starved', x: rect.x + 4, y: rect.y + rect.height - 14, fill: '#424242', font: 'bold 11px sans-serif' } });
      return { type: 'group', children: children };
    },
    tooltip: {
      formatter: function (p) {
        var w = data.starved[p.dataIndex];
        return tip('harness starved: ' + w.worker + "'s " + w.thread + ' thread', [
          'kept from running for ' + w.ms + ' ms, from ' + when(w.start) + ' to ' + when(w.end),
          'timing verdicts that this accounts for are unknown, not invalid'
        ]);
      }
    }
  };

  var claimSeries = {
    name: 'claims', type: 'custom', z: 2, itemStyle: { color: '#43a047' },
    data: data.claims.map(function (c, i) { return [c.start, c.zombieEnd === null ? c.end : c.zombieEnd, yOf(c.lane, c.row), i]; }),
    encode: { x: [0, 1], y: 2 },
    renderItem: function (params, api) {
      var c = data.claims[params.dataIndex];
      var half = (0.8 / rowsOf(c.lane)) * 0.32;
      var y = yOf(c.lane, c.row);
      var color = CLAIM_COLORS[c.ended] || '#90a4ae';
      var children = [];
      var bar = clip(rectBetween(api, c.start, c.end, y - half, y + half, 2), params);
      if (bar) {
        children.push({ type: 'rect', shape: bar, style: { fill: color, stroke: '#263238', lineWidth: 0.5 } });
        var label = 'job ' + c.job + (c.attempt > 1 ? ' #' + c.attempt : '');
        if (bar.width > label.length * 6 + 10) {
          children.push({ type: 'text', style: { text: label, x: bar.x + 4, y: bar.y + 2, verticalAlign: 'top', fill: '#ffffff', font: '10px sans-serif' } });
        }
      }
      if (c.zombieEnd !== null) {
        var a = api.coord([c.end, y]);
        var b = api.coord([c.zombieEnd, y]);
        var tail = clip({ x: a[0], y: a[1] - 2, width: Math.max(b[0] - a[0], 1), height: 4 }, params);
        if (tail) children.push({ type: 'rect', shape: tail, style: { fill: color, opacity: 0.55, stroke: color, lineDash: [3, 2] } });
      }
      return { type: 'group', children: children };
    },
    tooltip: {
      formatter: function (p) {
        var c = data.claims[p.dataIndex];
        return tip('claim ' + c.attempt + ' of job ' + c.job, [
          'holder ' + esc(c.holder) + ', ended <b>' + esc(c.ended) + '</b>',
          'granted ' + when(c.start), 'bar ends ' + when(c.end), 'deadline ' + when(c.deadline),
          c.extensions + ' extensions, ' + c.effects + ' effects',
          c.zombieEnd === null ? '' : 'work after expiry until ' + when(c.zombieEnd)
        ]);
      }
    }
  };

  var pointSeries = POINTS.map(function (k) {
    var points = data.points.filter(function (p) { return p.kind === k.kind; });
    return {
      name: k.name, type: 'scatter', z: k.z, symbol: k.symbol, symbolSize: k.size,
      itemStyle: { color: k.color, borderColor: k.border || k.color, borderWidth: k.border ? 1 : 0, opacity: 1 },
      large: points.length > 5000,
      // Effects sit low on the bar, under the job label, so that dense units stay readable.
      data: points.map(function (p) { return [p.t, yOf(p.lane, p.row) + (k.kind === 'effect' ? 0.14 / rowsOf(p.lane) : 0)]; }),
      tooltip: {
        formatter: function (p) {
          var e = points[p.dataIndex];
          return tip(k.name, [when(e.t), esc(e.text)]);
        }
      }
    };
  }).filter(function (s) { return s.data.length > 0; });

  function markerSeries(severity, name, color) {
    var markers = data.markers.filter(function (m) { return m.severity === severity; });
    return {
      name: name, type: 'scatter', z: 10, symbol: 'pin', symbolSize: 30, symbolOffset: [0, '-50%'],
      itemStyle: { color: color, borderColor: '#ffffff', borderWidth: 1 },
      label: { show: true, formatter: severity === 'violation' ? '!' : '?', color: '#ffffff', fontWeight: 'bold', offset: [0, -15] },
      data: markers.map(function (m) { return { value: [m.t, yOf(m.lane, m.row)], markerId: m.id }; }),
      tooltip: {
        formatter: function (p) {
          var m = markers[p.dataIndex];
          return tip(m.invariant + ' ' + m.checker + ' (' + m.severity + '), job ' + m.job, [when(m.t), esc(m.message)]);
        }
      }
    };
  }
  var violationSeries = markerSeries('violation', 'violation', '#d50000');
  var warningSeries = markerSeries('warning', 'warning', '#ffa000');
  var citedSeries = {
    id: 'cited', name: 'cited by the selected evidence', type: 'effectScatter', z: 9, symbolSize: 14,
    rippleEffect: { scale: 2.6, brushType: 'stroke' }, itemStyle: { color: '#d50000' }, data: [],
    tooltip: { formatter: function (p) { return tip(p.data.role, [when(p.data.value[0]), esc(p.data.text)]); } }
  };

  var series = [laneSeries, faultSeries, starvedSeries, claimSeries].concat(pointSeries, [violationSeries, warningSeries, citedSeries])
    .filter(function (s) { return s.type === 'custom' || s.data.length > 0 || s === citedSeries; });
  var legendNames = series.filter(function (s) { return s.name !== 'lanes' && s.name !== 'cited by the selected evidence'; })
    .map(function (s) { return s.name; });

  chart.setOption({
    animation: false,
    grid: GRID,
    // One scrolling row, so that however many kinds a run has, the legend stays above the grid.
    legend: { type: 'scroll', top: 4, left: GRID.left, right: GRID.right, data: legendNames, textStyle: { fontSize: 11 } },
    tooltip: { trigger: 'item', confine: true, enterable: false },
    toolbox: { right: 8, top: 26, feature: { dataZoom: { yAxisIndex: 'none' }, restore: {}, saveAsImage: { name: 'timeline' } } },
    // The whole run first: a reader judges where to zoom once they have seen all of it.
    dataZoom: [
      { type: 'inside', xAxisIndex: 0, filterMode: 'weakFilter', start: 0, end: 100 },
      { type: 'slider', xAxisIndex: 0, filterMode: 'weakFilter', start: 0, end: 100, bottom: 14, height: 22, showDataShadow: false, labelFormatter: function (v) { return relText(v); } }
    ],
    // About one tick per 120 px, and a label that would touch its neighbour is left out
    // (incident clock labels are twelve characters wide).
    xAxis: {
      type: 'value', min: 0, max: Math.max(data.endT, 1), name: inc ? "the incident's clock, UTC (replayed " + (round(1 / inc.scale) === 1 ? 'in real time' : round(1 / inc.scale) + '× faster') + ')' : 'ms since start (database clock)', nameLocation: 'middle', nameGap: 32,
      splitNumber: Math.max(2, Math.floor((chartEl.clientWidth - GRID.left - GRID.right) / 120)),
      axisLine: { onZero: false }, axisLabel: { hideOverlap: true, showMaxLabel: false, formatter: function (v) { return inc ? incText(v).replace(/\.000$/, '') : round(v) + 'ms'; } }, splitLine: { lineStyle: { color: '#e0e0e0' } }
    },
    yAxis: {
      type: 'value', inverse: true, min: -0.5, max: nLanes - 0.5, interval: 1,
      axisLabel: { show: false }, splitLine: { show: false }, axisTick: { show: false }
    },
    series: series
  });

  // The server rendered one element per marker; keep each over its pin as the view changes.
  var overlay = document.getElementById('markers');
  function placeMarkers() {
    var width = chartEl.clientWidth;
    data.markers.forEach(function (m) {
      var el = document.getElementById(m.id);
      if (!el) return;
      var px = chart.convertToPixel({ gridIndex: 0 }, [m.t, yOf(m.lane, m.row)]);
      var inside = px && px[0] >= GRID.left - 1 && px[0] <= width - GRID.right + 1;
      el.hidden = !inside;
      if (inside) { el.style.left = px[0] + 'px'; el.style.top = px[1] + 'px'; }
    });
  }
  chart.on('finished', placeMarkers);
  window.addEventListener('resize', function () { chart.resize(); placeMarkers(); });

  var details = document.getElementById('details');
  function showDetails(m) {
    details.hidden = false;
    details.innerHTML = '<h2>' + esc(m.invariant + ' ' + m.checker) + ' — job ' + esc(m.job) + '</h2>' +
      '<p>' + esc(m.message) + '</p><ol>' +
      m.cited.map(function (c) {
        return '<li>' + when(c.t) + ' on <b>' + esc(lanes[c.lane] ? lanes[c.lane].id : '?') + '</b>: ' + esc(c.role) + ' — ' + esc(c.text) + '</li>';
      }).join('') + '</ol>' +
      (m.faults.length ? '<p>Faults active: ' + m.faults.map(esc).join('; ') + '</p>' : '<p>No fault was active.</p>');
  }

  function focusMarker(id, scroll) {
    var m = data.markers.find(function (x) { return x.id === id; });
    if (!m) return;
    document.querySelectorAll('.focused').forEach(function (el) { el.classList.remove('focused'); });
    var el = document.getElementById(id);
    if (el) el.classList.add('focused');
    var link = document.querySelector('a[data-marker="' + id + '"]');
    if (link) link.parentElement.classList.add('focused');
    var ts = m.cited.map(function (c) { return c.t; }).concat([m.t]);
    var span = Math.max(data.lease.durationMs * 3, data.endT * 0.1, Math.max.apply(null, ts) - Math.min.apply(null, ts));
    var from = Math.max(0, Math.floor((Math.min.apply(null, ts) - span / 2) / 100) * 100);
    var to = Math.min(data.endT, Math.ceil((from + span * 2) / 100) * 100);
    chart.dispatchAction({ type: 'dataZoom', dataZoomIndex: 0, startValue: from, endValue: to });
    chart.setOption({ series: [{ id: 'cited', data: m.cited.map(function (c) {
      return { value: [c.t, yOf(c.lane, c.row)], role: c.role, text: c.text };
    }) }] });
    showDetails(m);
    if (scroll) document.getElementById('chart-wrap').scrollIntoView({ behavior: 'smooth', block: 'center' });
    if (history.replaceState) history.replaceState(null, '', '#' + id);
  }
  document.querySelectorAll('a[data-marker]').forEach(function (a) {
    a.addEventListener('click', function (event) {
      event.preventDefault();
      focusMarker(a.getAttribute('data-marker'), true);
    });
  });
  chart.on('click', function (p) {
    if (p.data && p.data.markerId) focusMarker(p.data.markerId, false);
  });
  placeMarkers();
  var hash = decodeURIComponent(location.hash.slice(1));
  if (hash) focusMarker(hash, true);
  document.body.setAttribute('data-rendered', 'true');
})();
`;
