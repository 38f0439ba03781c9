/* Share Viewer, results widgets: reading explore.json (app.viewer.results.explore_answer).

   A module imported by static/js/index_progress.js and plots.js; no page loads it with a
   <script> tag (see shortlist_store.js for why). */

import { formatCount } from "./numbers.js";

const POLL_MS = 1000;

export function fetchJSON(url) {
  return fetch(url, {credentials: "same-origin", cache: "no-store", headers: {Accept: "application/json"}})
    .then(function (response) {
      if (!response.ok) { throw new Error("HTTP " + response.status); }
      return response.json();
    });
}

/* Call onUpdate with every "building" answer and onReady with the first "ready" one. */
export function poll(url, onUpdate, onReady) {
  let failures = 0;
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

/* "Indexing 1 200 of 100 000 results", from a "building" answer. */
export function progressText(body) {
  return "Indexing " + formatCount(body.indexed || 0) + " of " + formatCount(body.total || 0) +
    " results";
}
