/* Share Viewer, results widgets: the shortlist of one pipeline's results.

   The ids live in localStorage ("share-viewer:shortlist:<pipeline id>", at most 200, the
   API's ids limit), so they survive paging and reloads; another tab's changes arrive with
   the "storage" event. Nothing is sent to the server.

   A module imported by static/js/shortlist.js (the bar and the table's ticks) and plots.js
   (picking points on the scatter). A page evaluates a module once per URL, so both get
   the same Shortlist from shortlistOf(): a tick shows on the scatter at once, and the
   other way round. No page loads it with a <script> tag: the tags' URLs carry a ?v=
   fingerprint, and a second URL would be a second copy of the module. */

export const MAX_IDS = 200;
const STORAGE_PREFIX = "share-viewer:shortlist:";
const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

function storage() {
  try { return window.localStorage; } catch (err) { return null; } // blocked (e.g. sandboxed frame)
}

function Shortlist(pipelineId) {
  this.key = STORAGE_PREFIX + pipelineId;
  this.listeners = [];
  this.ids = this.read();
  const self = this;
  window.addEventListener("storage", function (event) {
    if (event.key === self.key || event.key === null) { self.ids = self.read(); self.changed(); }
  });
}

Shortlist.prototype.read = function () {
  const store = storage();
  let list = [];
  try { list = JSON.parse((store && store.getItem(this.key)) || "[]"); } catch (err) { list = []; }
  if (!Array.isArray(list)) { return []; }
  const seen = {};
  return list.filter(function (id) {
    if (typeof id !== "string" || !ID_PATTERN.test(id) || seen[id]) { return false; }
    seen[id] = true;
    return true;
  }).slice(0, MAX_IDS);
};

Shortlist.prototype.write = function () {
  const store = storage();
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
  const self = this;
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

/* Move one id ``by`` places (-1: up, 1: down) within the list; returns whether it moved. */
Shortlist.prototype.move = function (id, by) {
  const from = this.ids.indexOf(id);
  const to = from + by;
  if (from === -1 || to < 0 || to >= this.ids.length) { return false; }
  this.ids.splice(from, 1);
  this.ids.splice(to, 0, id);
  this.write();
  this.changed({moved: id, to: to});
  return true;
};

Shortlist.prototype.toggle = function (id) { return this.set(id, !this.has(id)); };

Shortlist.prototype.clear = function () {
  this.ids = [];
  this.write();
  this.changed({cleared: true});
};

const lists = new Map();

/* The one Shortlist of a pipeline on this page. */
export function shortlistOf(pipelineId) {
  if (!lists.has(pipelineId)) { lists.set(pipelineId, new Shortlist(pipelineId)); }
  return lists.get(pipelineId);
}
