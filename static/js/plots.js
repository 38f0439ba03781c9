/* Share Viewer: the plots of a results view (templates/share/results/_plots.html).

   Observable Plot (vendored, static/vendor/plot-0.6.17 with d3) draws a histogram per
   metric and a scatter of the chosen axes, over the results that match the page's filters
   (explore.json). Each point links to its result page; "Pick points" turns clicks on
   points into adding them to the shortlist (results/shortlist_store.js, shared with the
   shortlist bar, shortlist.js), and shortlisted points are drawn larger, orange, with a
   dark ring.

   A module (type="module": run once, after the page is parsed, so after Plot and d3,
   whose deferred scripts come first in the partial), loaded by its partial only.
   External file (no inline script, no eval). Plot adds a <style> element to each chart;
   the strict style-src would refuse it, so it is removed before the chart enters the
   page and static/css/explore.css carries the same rules (class "explore-plot"). */

import { fetchJSON, poll, progressText } from "./results/explore_json.js";
import { formatCount, formatValue, plural } from "./results/numbers.js";
import { shortlistOf } from "./results/shortlist_store.js";

const KEYBOARD_POINTS = 100; // scatter points are Tab stops only up to this many

const COLOURS = {bar: "#0b5cad", point: "#0b5cad", grid: "#d8dde5"};

/* Plot's chart without its <style> element (refused by the CSP; see explore.css). */
function plot(options) {
  options.className = "explore-plot";
  const chart = window.Plot.plot(options);
  const svg = chart.tagName.toLowerCase() === "svg" ? chart : chart.querySelector("svg");
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
  const width = Math.floor(element.getBoundingClientRect().width);
  return width > 50 ? width : fallback;
}

function histogramSummary(hist, total) {
  let best = null;
  hist.bins.forEach(function (bin) { if (!best || bin.count > best.count) { best = bin; } });
  let text = "Histogram of " + hist.label + ": " + plural(total, "result", "results");
  if (hist.bins.length) {
    text += " from " + formatValue(Math.min.apply(null, hist.bins.map(function (b) { return b.x0; }))) +
      " to " + formatValue(Math.max.apply(null, hist.bins.map(function (b) { return b.x1; }))) +
      " in " + plural(hist.bins.length, "bin", "bins");
    if (best && best.count) { text += "; most (" + formatCount(best.count) + ") between " + formatValue(best.x0) + " and " + formatValue(best.x1); }
  }
  if (hist.missing) { text += "; " + plural(hist.missing, "result has", "results have") + " no value"; }
  return text + ".";
}

function drawHistogram(figure, hist) {
  const holder = figure.querySelector(".plot-holder");
  holder.textContent = "";
  const total = hist.bins.reduce(function (sum, bin) { return sum + bin.count; }, 0);
  if (!hist.bins.length || total === 0) {
    const none = document.createElement("p");
    none.className = "muted";
    none.textContent = "No values.";
    holder.appendChild(none);
    return;
  }
  let lo = Math.min.apply(null, hist.bins.map(function (bin) { return bin.x0; }));
  let hi = Math.max.apply(null, hist.bins.map(function (bin) { return bin.x1; }));
  if (!(hi > lo)) { lo -= 0.5; hi += 0.5; }
  const width = widthOf(holder, 240);
  const drawn = plot({
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
  const self = this;
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
      const link = event.target.closest ? event.target.closest("a[data-id]") : null;
      if (!link) { return; }
      event.preventDefault();
      self.list.toggle(link.getAttribute("data-id"));
    });
  }
  this.list.onChange(function () { self.markPoints(); });
  let pending = null;
  window.addEventListener("resize", function () {
    window.clearTimeout(pending);
    pending = window.setTimeout(function () {
      if (self.body && widthOf(self.section, 0) !== self.lastWidth) { self.draw(); }
    }, 150);
  });
};

Explore.prototype.describePicking = function () {
  const hint = this.section.querySelector("[data-explore-pick-hint]");
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
  const box = this.histograms;
  if (!box) { return; }
  box.textContent = "";
  const list = this.body.histograms || [];
  const figures = list.map(function (hist, index) {
    const figure = document.createElement("figure");
    figure.className = "histogram";
    const caption = document.createElement("figcaption");
    caption.id = "histogram-" + index + "-caption";
    const name = document.createElement("span");
    name.className = "histogram-label";
    name.textContent = hist.label;
    caption.appendChild(name);
    if (hist.unit && hist.label.indexOf("(" + hist.unit + ")") === -1) {
      const unit = document.createElement("span");
      unit.className = "unit";
      unit.textContent = hist.unit;
      caption.appendChild(unit);
    }
    if (hist.missing) {
      const missing = document.createElement("span");
      missing.className = "histogram-missing";
      missing.textContent = plural(hist.missing, "without a value", "without a value");
      caption.appendChild(missing);
    }
    const holder = document.createElement("div");
    holder.className = "plot-holder";
    figure.appendChild(caption);
    figure.appendChild(holder);
    box.appendChild(figure);
    return figure;
  });
  // Drawn once all figures are in the grid, so each knows its width.
  figures.forEach(function (figure, index) { drawHistogram(figure, list[index]); });
  if (!list.length) {
    const none = document.createElement("p");
    none.className = "muted";
    none.textContent = "No metrics to show.";
    box.appendChild(none);
  }
};

Explore.prototype.resultHref = function (id) {
  return this.resultBase + encodeURIComponent(id) + (this.embed ? "?embed=1" : "");
};

Explore.prototype.drawScatter = function () {
  const self = this;
  const points = this.body.points;
  const holder = this.scatterHolder;
  if (!holder || !points) { return; }
  holder.textContent = "";
  const data = (points.data || []).filter(function (d) {
    return d && typeof d.id === "string" && isFinite(d.x) && isFinite(d.y) && d.x !== null && d.y !== null;
  });
  const matched = typeof this.body.matched === "number" ? this.body.matched : data.length;
  const xLabel = points.x_label || points.x;
  const yLabel = points.y_label || points.y;
  let text = plural(data.length, "point", "points");
  if (points.truncated) {
    text += " shown of " + plural(matched, "matching result", "matching results") +
      " (the scatter holds at most " + formatCount(points.limit || data.length) + ")";
  } else if (data.length < matched) {
    const lacking = matched - data.length;
    text += " (" + plural(lacking, "matching result has", "matching results have") + " no " + xLabel + " or " + yLabel + ")";
  }
  if (this.count) { this.count.textContent = text + "."; }
  const title = this.scatter.querySelector("[data-explore-scatter-title]");
  if (title) { title.textContent = yLabel + " against " + xLabel; }
  if (!data.length) {
    const none = document.createElement("p");
    none.className = "muted";
    none.textContent = "No result has both values.";
    holder.appendChild(none);
    return;
  }
  this.idByHref = {};
  const hrefs = data.map(function (d) {
    const href = self.resultHref(d.id);
    self.idByHref[href] = d.id;
    return href;
  });
  const width = widthOf(holder, 340);
  const drawn = plot({
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
        title: function (d) { return (d.label ? d.label + " (" + d.id + ")" : d.id) + "\n" + xLabel + ": " + formatValue(d.x) + "\n" + yLabel + ": " + formatValue(d.y); }
      })
    ]
  });
  drawn.svg.setAttribute("aria-label", "Scatter of " + yLabel + " against " + xLabel + ": " + text +
    ". Each point links to its result.");
  drawn.svg.setAttribute("role", "group");
  holder.appendChild(drawn.chart);
  this.points = Array.prototype.slice.call(drawn.svg.querySelectorAll("a"));
  const tabbable = this.points.length <= KEYBOARD_POINTS;
  const byId = {};
  data.forEach(function (d) { byId[d.id] = d; });
  this.points.forEach(function (link) {
    const href = link.getAttributeNS("http://www.w3.org/1999/xlink", "href") || link.getAttribute("href");
    const id = self.idByHref[href];
    if (!id) { return; }
    const d = byId[id];
    link.setAttribute("data-id", id);
    link.setAttribute("data-label", (d.label || id) + ", " + xLabel + " " + formatValue(d.x) + ", " + yLabel + " " + formatValue(d.y));
    link.classList.add("point");
    if (!tabbable) { link.setAttribute("tabindex", "-1"); }
  });
  this.markPoints();
};

/* Shortlisted points: a class (larger, orange, ringed; drawn last, so on top) and their names. */
Explore.prototype.markPoints = function () {
  const list = this.list;
  const picking = this.picking;
  (this.points || []).forEach(function (link) {
    const id = link.getAttribute("data-id");
    if (!id) { return; }
    const picked = list.has(id);
    const was = link.classList.contains("picked");
    link.classList.toggle("picked", picked);
    let label = link.getAttribute("data-label") + (picked ? " (in the shortlist)" : "");
    if (picking) { label = (picked ? "Remove from the shortlist: " : "Add to the shortlist: ") + label; }
    link.setAttribute("aria-label", label);
    if (picked && !was && link.parentNode) { link.parentNode.appendChild(link); }
  });
};

/* On the results page the plots sit in a closed <details> (the page opens on the table):
   they are fetched and drawn when it is first opened, at the width they then have. A
   visitor who opened them finds them open on the next view of this tab (sorting,
   filtering, paging while looking at the plots), until they close them. */
const OPEN_KEY = "share-viewer:plots-open";

function remember(open) {
  try { window.sessionStorage.setItem(OPEN_KEY, open ? "1" : "0"); } catch (e) { /* private mode */ }
}

function remembered() {
  try { return window.sessionStorage.getItem(OPEN_KEY) === "1"; } catch (e) { return false; }
}

const section = document.getElementById("explore");
if (section) {
  const explore = new Explore(section, shortlistOf(section.getAttribute("data-pipeline-id")));
  const panel = section.closest("details");
  if (!panel || panel.open) {
    explore.start();
  } else {
    let started = false;
    panel.addEventListener("toggle", function () {
      remember(panel.open);
      if (panel.open && !started) { started = true; explore.start(); }
    });
    if (remembered()) { panel.open = true; }
  }
}
