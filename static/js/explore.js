/* Share Viewer: exploring a pipeline's results in the browser (issue 8).

   - While the server builds the results index: polls explore.json about once a second,
     updates #index-progress and its text, reloads the page when the index is ready.
   - Plots (Observable Plot, vendored): a histogram per metric and a scatter of the chosen
     axes, over the results that match the page's filters (explore.json). Each point links
     to its result page; shortlisted points are drawn larger, orange, with a dark ring.
   - The shortlist: a checkbox in each table row and "Pick points" on the scatter; the ids
     live in localStorage ("share-viewer:shortlist:<pipeline id>", at most 200, the API's
     ids limit), so they survive paging and reloads. Nothing is sent to the server until
     the visitor follows "Open as view" or an export link (plain GET links with ids=).

   External file (no inline script, no eval). Plot adds a <style> element to each chart;
   the strict style-src would refuse it, so it is removed before the chart enters the
   page and static/css/explore.css carries the same rules (class "explore-plot").
   Both partials load this file; it runs once. */
(function () {
  "use strict";
  if (window.ShareViewerExplore) { return; }
  var api = window.ShareViewerExplore = {};

  var MAX_IDS = 200;
  var STORAGE_PREFIX = "share-viewer:shortlist:";
  var ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
  var POLL_MS = 1000;
  var KEYBOARD_POINTS = 100; // scatter points are Tab stops only up to this many
  // Thousands with a thin space, like the page's own numbers (formatting.format_number).
  var grouped = new Intl.NumberFormat("en-US");
  var numberFormat = {format: function (n) { return grouped.format(n).replace(/,/g, "\u2009"); }};

  function plural(n, one, many) { return numberFormat.format(n) + " " + (n === 1 ? one : many); }

  function formatValue(value) {
    if (value === null || value === undefined || !isFinite(value)) { return "none"; }
    var magnitude = Math.abs(value);
    if (magnitude !== 0 && (magnitude >= 1e5 || magnitude < 1e-3)) { return value.toExponential(2); }
    return String(Math.round(value * 1000) / 1000);
  }

  /* ---------------------------------------------------------------- shortlist store */

  function storage() {
    try { return window.localStorage; } catch (err) { return null; } // blocked (e.g. sandboxed frame)
  }

  function Shortlist(pipelineId) {
    this.key = STORAGE_PREFIX + pipelineId;
    this.listeners = [];
    this.ids = this.read();
    var self = this;
    window.addEventListener("storage", function (event) {
      if (event.key === self.key || event.key === null) { self.ids = self.read(); self.changed(); }
    });
  }

  Shortlist.prototype.read = function () {
    var store = storage();
    var list = [];
    try { list = JSON.parse((store && store.getItem(this.key)) || "[]"); } catch (err) { list = []; }
    if (!Array.isArray(list)) { return []; }
    var seen = {};
    return list.filter(function (id) {
      if (typeof id !== "string" || !ID_PATTERN.test(id) || seen[id]) { return false; }
      seen[id] = true;
      return true;
    }).slice(0, MAX_IDS);
  };

  Shortlist.prototype.write = function () {
    var store = storage();
    try {
      if (!store) { return; }
      if (this.ids.length) { store.setItem(this.key, JSON.stringify(this.ids)); }
      else { store.removeItem(this.key); }
    } catch (err) { /* storage full or refused: the list still holds for this page */ }
  };

  Shortlist.prototype.has = function (id) { return this.ids.indexOf(id) !== -1; };
  Shortlist.prototype.isFull = function () { return this.ids.length >= MAX_IDS; };
  Shortlist.prototype.onChange = function (fn) { this.listeners.push(fn); };
  Shortlist.prototype.changed = function (info) {
    var self = this;
    this.listeners.forEach(function (fn) { fn(self, info || {}); });
  };

  /* Add or remove one id; returns false when the list is full and nothing was added. */
  Shortlist.prototype.set = function (id, wanted) {
    if (!ID_PATTERN.test(id) || wanted === this.has(id)) { return true; }
    if (wanted && this.isFull()) { this.changed({full: true}); return false; }
    if (wanted) { this.ids.push(id); } else { this.ids.splice(this.ids.indexOf(id), 1); }
    this.write();
    this.changed({id: id, added: wanted});
    return true;
  };

  Shortlist.prototype.toggle = function (id) { return this.set(id, !this.has(id)); };

  Shortlist.prototype.clear = function () {
    this.ids = [];
    this.write();
    this.changed({cleared: true});
  };

  /* ---------------------------------------------------------------- shortlist UI */

  function withQuery(base, params) {
    var parts = [];
    Object.keys(params).forEach(function (name) {
      if (params[name] !== null && params[name] !== undefined && params[name] !== "") {
        parts.push(encodeURIComponent(name) + "=" + params[name]);
      }
    });
    return parts.length ? base + (base.indexOf("?") === -1 ? "?" : "&") + parts.join("&") : base;
  }

  function idsParam(list) { return list.map(encodeURIComponent).join(","); }

  // viewer.js (every page loads it) owns copying; looked up at click time because this
  // script may run first.
  function copyText(text) {
    return window.ShareViewer.copyText(text);
  }

  function fullMessage() {
    return "The shortlist is full: it holds at most " + MAX_IDS +
      " results (the most one view can show). Remove some to add others.";
  }

  function setupBar(bar, list) {
    var embed = bar.getAttribute("data-embed") === "1";
    var viewUrl = bar.getAttribute("data-view-url");
    var exportBase = bar.getAttribute("data-export-base");
    var count = bar.querySelector("[data-shortlist-count]");
    var noun = bar.querySelector("[data-shortlist-noun]");
    var view = bar.querySelector("[data-shortlist-view]");
    var exports = bar.querySelectorAll("[data-shortlist-export]");
    var copy = bar.querySelector("[data-shortlist-copy]");
    var clear = bar.querySelector("[data-shortlist-clear]");
    var status = bar.querySelector("[data-shortlist-status]");
    var manual = bar.querySelector("[data-shortlist-url]");
    var compare = bar.querySelector("[data-shortlist-compare]");
    var compareUrl = bar.getAttribute("data-compare-url");

    // "Compare in 3D" (structure_views.compare) works on exactly two results.
    function renderCompare() {
      if (!compare || !compareUrl) { return; }
      if (list.ids.length === 2) {
        compare.href = withQuery(compareUrl, {a: list.ids[0], b: list.ids[1], embed: embed ? "1" : null});
        compare.removeAttribute("aria-disabled");
        compare.title = "Superpose these two results in one 3D view";
      } else {
        compare.removeAttribute("href");
        compare.setAttribute("aria-disabled", "true");
        compare.title = "Shortlist exactly two results to compare them in 3D";
      }
    }

    function viewHref() {
      return withQuery(viewUrl, {ids: idsParam(list.ids), embed: embed ? "1" : null});
    }

    function say(message) { if (status) { status.textContent = message; } }

    function render(info) {
      var n = list.ids.length;
      bar.hidden = n === 0;
      if (count) { count.textContent = numberFormat.format(n); }
      if (noun) { noun.textContent = n >= MAX_IDS ? "in shortlist (full)" : "in shortlist"; }
      if (view) { view.href = viewHref(); }
      Array.prototype.forEach.call(exports, function (link) {
        var format = link.getAttribute("data-shortlist-export");
        link.href = withQuery(exportBase + "." + format, {ids: idsParam(list.ids), embed: embed ? "1" : null});
      });
      if (manual) { manual.hidden = true; }
      renderCompare();
      if (info.full) { say(fullMessage()); }
      else if (info.cleared) { say("Shortlist cleared."); }
      else if (info.id) { say((info.added ? "Added " : "Removed ") + info.id + (info.added ? " to" : " from") + " the shortlist."); }
    }

    if (copy) {
      copy.addEventListener("click", function () {
        var url = new URL(viewHref(), window.location.href).href;
        copyText(url).then(function () {
          say("Link copied: it opens these " + plural(list.ids.length, "result", "results") + " as a view.");
        }, function () {
          if (manual) { manual.hidden = false; manual.value = url; manual.select(); }
          say("Copying was refused: select the link in the box and copy it.");
        });
      });
    }
    if (clear) {
      clear.addEventListener("click", function () { list.clear(); });
    }
    list.onChange(function (_list, info) { render(info); });
    render({});
  }

  function setupRows(list, table) {
    var rows = (table || document).querySelectorAll("tr[data-result-id]");
    var boxes = {};
    Array.prototype.forEach.call(rows, function (row) {
      var id = row.getAttribute("data-result-id");
      var cell = row.cells[0];
      if (!id || !cell || cell.querySelector("input.shortlist-tick")) { return; }
      var box = document.createElement("input");
      box.type = "checkbox";
      box.className = "shortlist-tick";
      box.value = id;
      box.setAttribute("aria-label", "Add " + id + " to the shortlist");
      box.checked = list.has(id);
      box.addEventListener("change", function () {
        if (!list.set(id, box.checked)) { box.checked = false; }
      });
      cell.insertBefore(box, cell.firstChild);
      row.classList.toggle("shortlisted", box.checked);
      boxes[id] = box;
    });
    list.onChange(function () {
      Object.keys(boxes).forEach(function (id) {
        boxes[id].checked = list.has(id);
        boxes[id].closest("tr").classList.toggle("shortlisted", boxes[id].checked);
      });
    });
  }

  /* ---------------------------------------------------------------- index progress */

  function fetchJSON(url) {
    return fetch(url, {credentials: "same-origin", cache: "no-store", headers: {Accept: "application/json"}})
      .then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.json();
      });
  }

  /* Call onUpdate with every "building" answer and onReady with the first "ready" one. */
  function poll(url, onUpdate, onReady) {
    var failures = 0;
    function tick() {
      fetchJSON(url).then(function (body) {
        failures = 0;
        if (body && body.state === "ready") { onReady(body); return; }
        onUpdate(body || {});
        window.setTimeout(tick, POLL_MS);
      }).catch(function () {
        failures += 1; // the server or the network hiccuped: back off, keep trying
        window.setTimeout(tick, Math.min(30000, POLL_MS * Math.pow(2, failures)));
      });
    }
    window.setTimeout(tick, POLL_MS);
  }

  function progressText(body) {
    return "Indexing " + numberFormat.format(body.indexed || 0) + " of " +
      numberFormat.format(body.total || 0) + " results";
  }

  function setupProgress(progress) {
    var url = progress.getAttribute("data-explore-url");
    var text = document.getElementById("index-progress-text");
    var lastText = 0;
    if (!url) { return; }
    poll(url, function (body) {
      if (typeof body.total === "number" && body.total > 0) { progress.max = body.total; }
      if (typeof body.indexed === "number") { progress.value = body.indexed; }
      // The text sits in a live region: new words every 5 s at most, not every second.
      if (text && Date.now() - lastText >= 5000) {
        lastText = Date.now();
        text.textContent = progressText(body);
      }
    }, function () {
      if (text) { text.textContent = "The index is ready: loading the results."; }
      window.location.reload();
    });
  }

  /* ---------------------------------------------------------------- plots */

  var COLOURS = {bar: "#0b5cad", point: "#0b5cad", grid: "#d8dde5"};

  /* Plot's chart without its <style> element (refused by the CSP; see explore.css). */
  function plot(options) {
    options.className = "explore-plot";
    var chart = window.Plot.plot(options);
    var svg = chart.tagName.toLowerCase() === "svg" ? chart : chart.querySelector("svg");
    Array.prototype.forEach.call(chart.querySelectorAll("style"), function (style) { style.remove(); });
    // Plot names its groups and frame ("dot", "x-axis tick"): an aria-label on a plain <g>
    // or <rect> is not allowed, and says nothing useful. Each chart gets its own name.
    Array.prototype.forEach.call(svg.querySelectorAll("[aria-label], [aria-description]"), function (node) {
      node.removeAttribute("aria-label");
      node.removeAttribute("aria-description");
    });
    return {chart: chart, svg: svg};
  }

  function widthOf(element, fallback) {
    var width = Math.floor(element.getBoundingClientRect().width);
    return width > 50 ? width : fallback;
  }

  function histogramSummary(hist, total) {
    var best = null;
    hist.bins.forEach(function (bin) { if (!best || bin.count > best.count) { best = bin; } });
    var text = "Histogram of " + hist.label + ": " + plural(total, "result", "results");
    if (hist.bins.length) {
      text += " from " + formatValue(Math.min.apply(null, hist.bins.map(function (b) { return b.x0; }))) +
        " to " + formatValue(Math.max.apply(null, hist.bins.map(function (b) { return b.x1; }))) +
        " in " + plural(hist.bins.length, "bin", "bins");
      if (best && best.count) { text += "; most (" + numberFormat.format(best.count) + ") between " + formatValue(best.x0) + " and " + formatValue(best.x1); }
    }
    if (hist.missing) { text += "; " + plural(hist.missing, "result has", "results have") + " no value"; }
    return text + ".";
  }

  function drawHistogram(figure, hist) {
    var holder = figure.querySelector(".plot-holder");
    holder.textContent = "";
    var total = hist.bins.reduce(function (sum, bin) { return sum + bin.count; }, 0);
    if (!hist.bins.length || total === 0) {
      var none = document.createElement("p");
      none.className = "muted";
      none.textContent = "No values.";
      holder.appendChild(none);
      return;
    }
    var lo = Math.min.apply(null, hist.bins.map(function (bin) { return bin.x0; }));
    var hi = Math.max.apply(null, hist.bins.map(function (bin) { return bin.x1; }));
    if (!(hi > lo)) { lo -= 0.5; hi += 0.5; }
    var width = widthOf(holder, 240);
    var drawn = plot({
      width: width,
      height: width < 220 ? 110 : 130,
      marginLeft: width < 220 ? 32 : 40,
      marginRight: 12,
      marginBottom: 28,
      x: {domain: [lo, hi], label: null, ticks: width < 220 ? 3 : 4},
      y: {label: null, ticks: 3, grid: true, tickFormat: "~s"},
      marks: [
        window.Plot.rectY(hist.bins, {
          x1: "x0", x2: "x1", y: "count", fill: COLOURS.bar, insetLeft: 0.5, insetRight: 0.5,
          title: function (bin) { return formatValue(bin.x0) + "–" + formatValue(bin.x1) + ": " + plural(bin.count, "result", "results"); }
        }),
        window.Plot.ruleY([0])
      ]
    });
    drawn.svg.setAttribute("role", "img");
    drawn.svg.setAttribute("aria-label", histogramSummary(hist, total));
    holder.appendChild(drawn.chart);
  }

  function Explore(section, list) {
    this.section = section;
    this.list = list;
    this.url = section.getAttribute("data-explore-url");
    this.resultBase = section.getAttribute("data-result-base") || "";
    this.embed = section.getAttribute("data-embed") === "1";
    this.status = section.querySelector("[data-explore-status]");
    this.histograms = section.querySelector("[data-explore-histograms]");
    this.scatter = section.querySelector("[data-explore-scatter]");
    this.scatterHolder = section.querySelector("[data-explore-scatter] .plot-holder");
    this.count = section.querySelector("[data-explore-count]");
    this.pick = section.querySelector("[data-explore-pick]");
    this.body = null;
    this.picking = false;
    this.lastWidth = 0;
  }

  Explore.prototype.say = function (text) { if (this.status) { this.status.textContent = text; } };

  Explore.prototype.start = function () {
    var self = this;
    if (!this.url) { return; }
    if (!window.Plot) { this.say("The plots could not be loaded; the table below lists the results."); return; }
    this.say("Loading the plots…");
    fetchJSON(this.url).then(function (body) {
      if (body.state === "ready") { self.show(body); return; }
      // The page's own progress bar (if any) reloads the page; otherwise wait here.
      self.say("Plots appear once the results are indexed (" + progressText(body).toLowerCase() + ").");
      if (!document.getElementById("index-progress")) {
        poll(self.url, function (b) {
          self.say("Plots appear once the results are indexed (" + progressText(b).toLowerCase() + ").");
        }, function (b) { self.show(b); });
      }
    }).catch(function () {
      self.say("The plots could not be loaded; the table below lists the results.");
    });
    if (this.pick) {
      this.pick.hidden = false;
      this.pick.addEventListener("click", function () {
        self.picking = !self.picking;
        self.pick.setAttribute("aria-pressed", String(self.picking));
        self.scatter.classList.toggle("picking", self.picking);
        self.describePicking();
        self.markPoints();
      });
    }
    if (this.scatter) {
      this.scatter.addEventListener("click", function (event) {
        if (!self.picking) { return; }
        var link = event.target.closest ? event.target.closest("a[data-id]") : null;
        if (!link) { return; }
        event.preventDefault();
        self.list.toggle(link.getAttribute("data-id"));
      });
    }
    this.list.onChange(function () { self.markPoints(); });
    var pending = null;
    window.addEventListener("resize", function () {
      window.clearTimeout(pending);
      pending = window.setTimeout(function () {
        if (self.body && widthOf(self.section, 0) !== self.lastWidth) { self.draw(); }
      }, 150);
    });
  };

  Explore.prototype.describePicking = function () {
    var hint = this.section.querySelector("[data-explore-pick-hint]");
    if (hint) {
      hint.textContent = this.picking
        ? "Picking: a click (or Enter) on a point adds it to the shortlist or takes it out."
        : "A click on a point opens its result.";
    }
  };

  Explore.prototype.show = function (body) {
    this.body = body;
    this.say("");
    this.draw();
  };

  Explore.prototype.draw = function () {
    this.lastWidth = widthOf(this.section, 0);
    this.drawHistograms();
    this.drawScatter();
  };

  Explore.prototype.drawHistograms = function () {
    var box = this.histograms;
    if (!box) { return; }
    box.textContent = "";
    var list = this.body.histograms || [];
    var figures = list.map(function (hist, index) {
      var figure = document.createElement("figure");
      figure.className = "histogram";
      var caption = document.createElement("figcaption");
      caption.id = "histogram-" + index + "-caption";
      var name = document.createElement("span");
      name.className = "histogram-label";
      name.textContent = hist.label;
      caption.appendChild(name);
      if (hist.unit && hist.label.indexOf("(" + hist.unit + ")") === -1) {
        var unit = document.createElement("span");
        unit.className = "unit";
        unit.textContent = hist.unit;
        caption.appendChild(unit);
      }
      if (hist.missing) {
        var missing = document.createElement("span");
        missing.className = "histogram-missing";
        missing.textContent = plural(hist.missing, "without a value", "without a value");
        caption.appendChild(missing);
      }
      var holder = document.createElement("div");
      holder.className = "plot-holder";
      figure.appendChild(caption);
      figure.appendChild(holder);
      box.appendChild(figure);
      return figure;
    });
    // Drawn once all figures are in the grid, so each knows its width.
    figures.forEach(function (figure, index) { drawHistogram(figure, list[index]); });
    if (!list.length) {
      var none = document.createElement("p");
      none.className = "muted";
      none.textContent = "No metrics to show.";
      box.appendChild(none);
    }
  };

  Explore.prototype.resultHref = function (id) {
    return this.resultBase + encodeURIComponent(id) + (this.embed ? "?embed=1" : "");
  };

  Explore.prototype.drawScatter = function () {
    var self = this;
    var points = this.body.points;
    var holder = this.scatterHolder;
    if (!holder || !points) { return; }
    holder.textContent = "";
    var data = (points.data || []).filter(function (d) {
      return d && typeof d.id === "string" && isFinite(d.x) && isFinite(d.y) && d.x !== null && d.y !== null;
    });
    var matched = typeof this.body.matched === "number" ? this.body.matched : data.length;
    var xLabel = points.x_label || points.x;
    var yLabel = points.y_label || points.y;
    var text = plural(data.length, "point", "points");
    if (points.truncated) {
      text += " shown of " + plural(matched, "matching result", "matching results") +
        " (the scatter holds at most " + numberFormat.format(points.limit || data.length) + ")";
    } else if (data.length < matched) {
      var lacking = matched - data.length;
      text += " (" + plural(lacking, "matching result has", "matching results have") + " no " + xLabel + " or " + yLabel + ")";
    }
    if (this.count) { this.count.textContent = text + "."; }
    var title = this.scatter.querySelector("[data-explore-scatter-title]");
    if (title) { title.textContent = yLabel + " against " + xLabel; }
    if (!data.length) {
      var none = document.createElement("p");
      none.className = "muted";
      none.textContent = "No result has both values.";
      holder.appendChild(none);
      return;
    }
    this.idByHref = {};
    var hrefs = data.map(function (d) {
      var href = self.resultHref(d.id);
      self.idByHref[href] = d.id;
      return href;
    });
    var width = widthOf(holder, 340);
    var drawn = plot({
      width: width,
      height: Math.max(260, Math.min(460, Math.round(width * 0.62))),
      marginLeft: 52,
      marginBottom: 40,
      grid: true,
      x: {label: xLabel, labelAnchor: "center", labelArrow: "none", nice: true},
      y: {label: yLabel, labelAnchor: "center", labelArrow: "none", nice: true},
      marks: [
        window.Plot.frame({stroke: COLOURS.grid}),
        window.Plot.dot(data, {
          x: "x", y: "y", r: 3.5, fill: COLOURS.point, fillOpacity: 0.55, stroke: "#ffffff", strokeWidth: 0.5,
          href: function (d, i) { return hrefs[i]; },
          title: function (d) { return d.id + "\n" + xLabel + ": " + formatValue(d.x) + "\n" + yLabel + ": " + formatValue(d.y); }
        })
      ]
    });
    drawn.svg.setAttribute("aria-label", "Scatter of " + yLabel + " against " + xLabel + ": " + text +
      ". Each point links to its result.");
    drawn.svg.setAttribute("role", "group");
    holder.appendChild(drawn.chart);
    this.points = Array.prototype.slice.call(drawn.svg.querySelectorAll("a"));
    var tabbable = this.points.length <= KEYBOARD_POINTS;
    var byId = {};
    data.forEach(function (d) { byId[d.id] = d; });
    this.points.forEach(function (link) {
      var href = link.getAttributeNS("http://www.w3.org/1999/xlink", "href") || link.getAttribute("href");
      var id = self.idByHref[href];
      if (!id) { return; }
      var d = byId[id];
      link.setAttribute("data-id", id);
      link.setAttribute("data-label", id + ", " + xLabel + " " + formatValue(d.x) + ", " + yLabel + " " + formatValue(d.y));
      link.classList.add("point");
      if (!tabbable) { link.setAttribute("tabindex", "-1"); }
    });
    this.markPoints();
  };

  /* Shortlisted points: a class (larger, orange, ringed; drawn last, so on top) and their names. */
  Explore.prototype.markPoints = function () {
    var list = this.list;
    var picking = this.picking;
    (this.points || []).forEach(function (link) {
      var id = link.getAttribute("data-id");
      if (!id) { return; }
      var picked = list.has(id);
      var was = link.classList.contains("picked");
      link.classList.toggle("picked", picked);
      var label = link.getAttribute("data-label") + (picked ? " (in the shortlist)" : "");
      if (picking) { label = (picked ? "Remove from the shortlist: " : "Add to the shortlist: ") + label; }
      link.setAttribute("aria-label", label);
      if (picked && !was && link.parentNode) { link.parentNode.appendChild(link); }
    });
  };

  /* ---------------------------------------------------------------- start */

  function start() {
    if (api.started) { return; }
    api.started = true;
    var progress = document.getElementById("index-progress");
    if (progress) { setupProgress(progress); }

    var bar = document.getElementById("shortlist");
    var section = document.getElementById("explore");
    var pipelineId = (bar && bar.getAttribute("data-pipeline-id")) ||
      (section && section.getAttribute("data-pipeline-id"));
    if (!pipelineId) { return; }
    var list = api.shortlist = new Shortlist(pipelineId);
    if (bar) { setupBar(bar, list); }
    setupRows(list, document.getElementById("results-table"));
    if (section) { api.explore = new Explore(section, list); api.explore.start(); }
  }

  // Deferred scripts run before DOMContentLoaded: waiting for it means Plot and D3 are
  // there whatever the order of the script tags.
  document.addEventListener("DOMContentLoaded", start);
  if (document.readyState === "complete") { start(); }
}());
