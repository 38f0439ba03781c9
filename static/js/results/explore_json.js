/* Share Viewer, results widgets: reading explore.json (app.viewer.explore.explore_answer).

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

/* "Indexing 1 200 of 100 000 results", from a "building" answer; "Counting the whole set:
   4 000 of 950 000 candidate molecules checked, 3 900 of them holding the substructure so
   far" from a "counting" one (distinct molecules: the rows a page shows are checked apart). */
export function progressText(body) {
  if (body.state === "counting") {
    return "Counting the whole set: " + formatCount(body.checked || 0) + " of " +
      formatCount(body.candidates || 0) + " candidate molecules checked, " +
      formatCount(body.matched_so_far || 0) + " of them holding the substructure so far";
  }
  return "Indexing " + formatCount(body.indexed || 0) + " of " + formatCount(body.total || 0) +
    " results";
}

/* How far a "building" or "counting" answer is: [done, of]. */
export function progressOf(body) {
  return body.state === "counting" ? [body.checked, body.candidates] : [body.indexed, body.total];
}
