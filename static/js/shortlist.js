/* Share Viewer: the shortlist bar and the table's ticks (templates/share/results/_shortlist.html).

   A checkbox in each table row adds its result to the shortlist (results/shortlist_store.js;
   "Pick points" on the scatter adds to the same list, plots.js). The bar, hidden while the
   list is empty, counts it and links to it: "Open as view", the exports (CSV, JSON, FASTA or
   SDF, Structures ZIP) and "Compare in 3D" are plain GET links with ids=, built here;
   nothing is sent until the visitor follows one.

   Order: the shortlist keeps the order things were added in, and each entry can be moved
   up or down (buttons, so the keyboard too). Its view and exports carry ids= without a
   sort, which the server answers in the order of the list (index.frame.order), so the
   files come out as picked, each with its place in the list as its rank.

   A module (type="module": run once, after the page is parsed), loaded by its partial only.
   External file (no inline script, no eval), so the strict Content-Security-Policy holds. */

import { formatCount, plural } from "./results/numbers.js";
import { MAX_IDS, shortlistOf } from "./results/shortlist_store.js";

function withQuery(base, params) {
  const parts = [];
  Object.keys(params).forEach(function (name) {
    if (params[name] !== null && params[name] !== undefined && params[name] !== "") {
      parts.push(encodeURIComponent(name) + "=" + params[name]);
    }
  });
  return parts.length ? base + (base.indexOf("?") === -1 ? "?" : "&") + parts.join("&") : base;
}

function idsParam(list) { return list.map(encodeURIComponent).join(","); }

// Labels of results seen on this page's rows (#3 WGK2), kept per pipeline beside the
// list so an entry picked on another page still reads as its label.
function labelStore(pipelineId) {
  const key = "share-viewer:shortlist-labels:" + pipelineId;
  let known = {};
  try { known = JSON.parse(window.localStorage.getItem(key) || "{}") || {}; } catch (err) { known = {}; }
  return {
    of: function (id) { return known[id] || id; },
    learn: function (rows, ids) {
      Array.prototype.forEach.call(rows, function (row) {
        const id = row.getAttribute("data-result-id");
        const label = row.getAttribute("data-label");
        if (id && label) { known[id] = label; }
      });
      const kept = {};
      ids.forEach(function (id) { if (known[id]) { kept[id] = known[id]; } });
      try { window.localStorage.setItem(key, JSON.stringify(kept)); } catch (err) { /* refused */ }
    },
  };
}

// viewer.js (every page loads it) owns copying; looked up at click time because this
// script may run first.
function copyText(text) {
  return window.ShareViewer.copyText(text);
}

function fullMessage() {
  return "The shortlist is full: it holds at most " + MAX_IDS +
    " results (the most one view can show). Remove some to add others.";
}

function setupBar(bar, list, labels) {
  const embed = bar.getAttribute("data-embed") === "1";
  const viewUrl = bar.getAttribute("data-view-url");
  const exportBase = bar.getAttribute("data-export-base");
  const count = bar.querySelector("[data-shortlist-count]");
  const noun = bar.querySelector("[data-shortlist-noun]");
  const view = bar.querySelector("[data-shortlist-view]");
  const exports = bar.querySelectorAll("[data-shortlist-export]");
  const copy = bar.querySelector("[data-shortlist-copy]");
  const clear = bar.querySelector("[data-shortlist-clear]");
  const status = bar.querySelector("[data-shortlist-status]");
  const manual = bar.querySelector("[data-shortlist-url]");
  const compare = bar.querySelector("[data-shortlist-compare]");
  const compareUrl = bar.getAttribute("data-compare-url");
  const entries = bar.querySelector("[data-shortlist-entries]");

  // One item per pick, in the list's order, with buttons to move it (focus follows).
  function renderEntries(info) {
    if (!entries) { return; }
    entries.textContent = "";
    list.ids.forEach(function (id, at) {
      const item = document.createElement("li");
      item.setAttribute("data-shortlist-entry", id);
      const name = document.createElement("span");
      name.className = "shortlist-label";
      name.textContent = labels.of(id);
      name.title = id;
      item.appendChild(name);
      [["up", -1, "↑"], ["down", 1, "↓"]].forEach(function (move) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "button mini shortlist-move";
        button.textContent = move[2];
        button.setAttribute("data-move", move[0]);
        button.setAttribute("aria-label", "Move " + labels.of(id) + " " + move[0]);
        button.disabled = (move[1] < 0 && at === 0) || (move[1] > 0 && at === list.ids.length - 1);
        button.addEventListener("click", function () { list.move(id, move[1]); });
        item.appendChild(button);
      });
      entries.appendChild(item);
    });
    if (info.moved) {
      const item = entries.querySelector('[data-shortlist-entry="' + info.moved + '"]');
      const back = item && (item.querySelector('[data-move="' + (info.to === 0 ? "down" : "up") + '"]:not([disabled])') ||
                            item.querySelector("[data-move]:not([disabled])"));
      if (back) { back.focus(); }
    }
  }

  // "Compare in 3D" (structure.compare) works on exactly two results.
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
    const n = list.ids.length;
    bar.hidden = n === 0;
    if (count) { count.textContent = formatCount(n); }
    if (noun) { noun.textContent = n >= MAX_IDS ? "in shortlist (full)" : "in shortlist"; }
    if (view) { view.href = viewHref(); }
    Array.prototype.forEach.call(exports, function (link) {
      const format = link.getAttribute("data-shortlist-export");
      link.href = withQuery(exportBase + "." + format,
        {ids: idsParam(list.ids), embed: embed ? "1" : null});
    });
    if (manual) { manual.hidden = true; }
    renderCompare();
    renderEntries(info);
    if (info.moved) { say("Moved " + labels.of(info.moved) + " to place " + (info.to + 1) + "."); }
    else if (info.full) { say(fullMessage()); }
    else if (info.cleared) { say("Shortlist cleared."); }
    else if (info.id) { say((info.added ? "Added " : "Removed ") + labels.of(info.id) + (info.added ? " to" : " from") + " the shortlist."); }
  }

  if (copy) {
    copy.addEventListener("click", function () {
      const url = new URL(viewHref(), window.location.href).href;
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
  const rows = (table || document).querySelectorAll("tr[data-result-id]");
  const boxes = {};
  Array.prototype.forEach.call(rows, function (row) {
    const id = row.getAttribute("data-result-id");
    const cell = row.cells[0];
    if (!id || !cell || cell.querySelector("input.shortlist-tick")) { return; }
    const box = document.createElement("input");
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

const bar = document.getElementById("shortlist");
if (bar) {
  const list = shortlistOf(bar.getAttribute("data-pipeline-id"));
  const labels = labelStore(bar.getAttribute("data-pipeline-id"));
  labels.learn(document.querySelectorAll("tr[data-result-id]"), list.ids);
  list.onChange(function () { labels.learn(document.querySelectorAll("tr[data-result-id]"), list.ids); });
  setupBar(bar, list, labels);
  setupRows(list, document.getElementById("results-table"));
}
