/* BackupXe HTML report: draws each [data-chart] element with uPlot from the JSON block it names. Every number
   drawn is also in the table beside the chart; this script only adds the pictures and the copy buttons. */
(function () {
  'use strict';

  var charts = [];

  function css(name) {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  }

  function palette() {
    return {
      fg: css('--fg'), muted: css('--muted'), grid: css('--grid'),
      phase: css('--c-phase'), read: css('--c-read'), zero: css('--c-zero'),
      line: css('--c-line'), fill: css('--c-fill'), bar: css('--c-bar'), bad: css('--c-bad'),
      shade: [css('--shade-a'), css('--shade-b')],
      series: [css('--s1'), css('--s2'), css('--s3'), css('--s4'), css('--s5'), css('--s6')]
    };
  }

  function axis(p, extra) {
    var base = {
      stroke: p.muted,
      grid: { stroke: p.grid, width: 1 },
      ticks: { stroke: p.grid, width: 1 },
      font: '12px system-ui, sans-serif',
      labelFont: '12px system-ui, sans-serif'
    };
    return Object.assign(base, extra || {});
  }

  function widthOf(el) {
    return Math.max(280, Math.floor(el.getBoundingClientRect().width));
  }

  function indices(n) {
    var list = [];
    for (var i = 0; i < n; i++) { list.push(i); }
    return list;
  }

  function fixed(v, digits) {
    return v == null ? '-' : Number(v).toFixed(digits);
  }

  // Gantt: one series per lane, a thick line from its start to its end (spanGaps joins the two points).
  function timeline(el, d, p) {
    var n = d.labels.length;
    var xs = Array.from(new Set(d.start.concat(d.end))).sort(function (a, b) { return a - b; });
    var data = [xs];
    var series = [{ label: 'seconds' }];
    var colours = { phase: p.phase, read: p.read, zero: p.zero };
    for (var i = 0; i < n; i++) {
      var row = n - 1 - i;
      data.push(xs.map(function (x) { return x === d.start[i] || x === d.end[i] ? row : null; }));
      series.push({
        label: d.labels[i], stroke: colours[d.groups[i]] || p.phase, width: 12, spanGaps: true,
        points: { show: d.start[i] === d.end[i], size: 12, fill: colours[d.groups[i]] || p.phase }
      });
    }
    return new uPlot({
      width: widthOf(el), height: 70 + n * 28,
      legend: { show: false }, cursor: { show: false },
      scales: { x: { time: false, range: [0, d.total] }, y: { range: [-0.6, n - 0.4] } },
      axes: [
        axis(p, { label: 'seconds since start', labelSize: 20 }),
        axis(p, {
          size: 170, splits: function () { return indices(n); },
          values: function (u, splits) { return splits.map(function (v) { return d.labels[n - 1 - v] || ''; }); }
        })
      ],
      series: series
    }, data, el);
  }

  // Copy rate as steps (each reading's interval at its average), phases shaded behind it.
  function rate(el, d, p) {
    var dpr = window.devicePixelRatio || 1;
    return new uPlot({
      width: widthOf(el), height: 240,
      legend: { show: false },
      scales: { x: { time: false, range: [0, d.total] }, y: { range: function (u, min, max) { return [0, Math.max(1, max * 1.1)]; } } },
      axes: [axis(p, { label: 'seconds since start', labelSize: 20 }), axis(p, { label: 'MB/s', labelSize: 20, size: 60 })],
      series: [
        { label: 'seconds' },
        { label: 'MB/s', stroke: p.line, fill: p.fill, width: 2, paths: uPlot.paths.stepped({ align: 1 }), points: { show: false } }
      ],
      hooks: {
        drawClear: [function (u) {
          var ctx = u.ctx;
          ctx.save();
          ctx.font = Math.round(11 * dpr) + 'px system-ui, sans-serif';
          d.phases.forEach(function (phase, i) {
            var x0 = u.valToPos(phase.start, 'x', true);
            var x1 = u.valToPos(phase.end, 'x', true);
            ctx.fillStyle = p.shade[i % 2];
            ctx.fillRect(x0, u.bbox.top, Math.max(1, x1 - x0), u.bbox.height);
            if (ctx.measureText(phase.name).width + 6 * dpr < x1 - x0) {
              ctx.fillStyle = p.muted;
              ctx.fillText(phase.name, x0 + 3 * dpr, u.bbox.top + u.bbox.height - 5 * dpr);
            }
          });
          ctx.restore();
        }]
      }
    }, [d.t, d.mbps], el);
  }

  // Whole decades around the data, the lowest strictly below the smallest bar so that every bar has a height.
  function logRange(u, min, max) {
    var low = Math.pow(10, Math.floor(Math.log10(Math.max(min, 0.001))));
    if (low >= min) { low /= 10; }
    return [low, Math.pow(10, Math.ceil(Math.log10(Math.max(max, low * 10))))];
  }

  function bars(el, p, labels, values, label, colour, log) {
    var n = labels.length;
    return new uPlot({
      width: widthOf(el), height: 220,
      legend: { show: false },
      scales: {
        x: { time: false, range: [-0.5, n - 0.5] },
        y: log ? { distr: 3, log: 10, range: logRange } : { range: function (u, min, max) { return [0, Math.max(1, max * 1.1)]; } }
      },
      axes: [
        axis(p, {
          splits: function () { return indices(n); }, grid: { show: false }, size: 60,
          values: function (u, splits) { return splits.map(function (v) { return labels[v] || ''; }); }
        }),
        axis(p, { label: label, labelSize: 20, size: 60 })
      ],
      series: [
        { label: 'index' },
        { label: label, fill: colour, stroke: colour, paths: uPlot.paths.bars({ size: [0.6, 90] }), points: { show: false } }
      ]
    }, [indices(n), values], el);
  }

  function waits(el, d, p) {
    return bars(el, p, d.types, d.totalSeconds, 'wait time, s', p.bar, false);
  }

  function memory(el, d, p) {
    return bars(el, p, d.labels, d.megabytes, 'MB (log scale)', p.line, true);
  }

  // Throughput per series over time (UTC wall clock as written in the input); regressions as large red points.
  function history(el, d, p) {
    var xs = Array.from(new Set(d.series.flatMap(function (s) { return s.at; }))).sort(function (a, b) { return a - b; });
    var data = [xs];
    var series = [{ label: 'time' }];
    d.series.forEach(function (s, i) {
      var byTime = new Map();
      s.at.forEach(function (t, j) { byTime.set(t, s.mbps[j]); });
      data.push(xs.map(function (t) { return byTime.has(t) ? byTime.get(t) : null; }));
      var colour = p.series[i % p.series.length];
      series.push({ label: s.name, stroke: colour, width: 2, spanGaps: true, points: { show: true, size: 6, fill: colour }, value: function (u, v) { return fixed(v, 1) + ' MB/s'; } });
    });
    var marked = new Map();
    d.regressions.at.forEach(function (t, j) { marked.set(t, d.regressions.mbps[j]); });
    data.push(xs.map(function (t) { return marked.has(t) ? marked.get(t) : null; }));
    series.push({
      label: 'regression', stroke: p.bad, width: 0, paths: function () { return null; },
      points: { show: true, size: 14, width: 2, stroke: p.bad, fill: 'transparent' },
      value: function (u, v) { return v == null ? '-' : fixed(v, 1) + ' MB/s'; }
    });
    return new uPlot({
      width: widthOf(el), height: 300,
      tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC'); },
      scales: { y: { range: function (u, min, max) { return [0, Math.max(1, max * 1.1)]; } } },
      axes: [axis(p), axis(p, { label: 'MB/s', labelSize: 20, size: 60 })],
      series: series
    }, data, el);
  }

  var builders = { timeline: timeline, rate: rate, waits: waits, memory: memory, history: history };

  function renderAll() {
    charts.forEach(function (u) { u.destroy(); });
    charts = [];
    var p = palette();
    document.querySelectorAll('[data-chart]').forEach(function (el) {
      var source = document.getElementById(el.getAttribute('data-source'));
      var d = JSON.parse(source.textContent)[el.getAttribute('data-chart')];
      var u = builders[el.getAttribute('data-chart')](el, d, p);
      charts.push(u);
      el.setAttribute('data-rendered-series', String(u.series.length - 1));
    });
  }

  function copy(button) {
    var text = document.getElementById(button.getAttribute('data-copy')).textContent;
    var done = function () {
      button.textContent = 'Copied';
      setTimeout(function () { button.textContent = 'Copy T-SQL'; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
    } else {
      fallbackCopy(text);
      done();
    }
  }

  // Pages opened from a file are not always a secure context: select a hidden text area and copy that.
  function fallbackCopy(text) {
    var area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'copy-buffer';
    document.body.appendChild(area);
    area.select();
    document.execCommand('copy');
    document.body.removeChild(area);
  }

  document.addEventListener('click', function (event) {
    var button = event.target.closest('button[data-copy]');
    if (button) { copy(button); }
  });

  renderAll();
  var scheme = window.matchMedia('(prefers-color-scheme: dark)');
  if (scheme.addEventListener) { scheme.addEventListener('change', renderAll); }
  var resizeTimer = 0;
  window.addEventListener('resize', function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(renderAll, 150);
  });
})();
