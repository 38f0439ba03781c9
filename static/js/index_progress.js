/* Share Viewer: the exploration index's progress (templates/share/results/_index_progress.html).

   While the server builds the results index (or counts a broad substructure query's
   matches: a "counting" answer), polls explore.json about once a second,
   moves #index-progress and updates its text, and reloads the page when the index is
   ready (without JavaScript, the page's <meta refresh> does that). A page that shows
   results meanwhile (data-on-ready="offer": the run's first results while the ranking
   waits for the index) is not pulled from under its reader: it offers a link instead.

   A module (type="module": run once, after the page is parsed), loaded by its partial only.
   External file (no inline script, no eval), so the strict Content-Security-Policy holds. */

import { poll, progressOf, progressText } from "./results/explore_json.js";

function setupProgress(progress) {
  const url = progress.getAttribute("data-explore-url");
  const text = document.getElementById("index-progress-text");
  let lastText = 0;
  if (!url) { return; }
  poll(url, function (body) {
    const [done, of] = progressOf(body);
    if (typeof of === "number" && of > 0) { progress.max = of; }
    if (typeof done === "number") { progress.value = done; }
    // The text sits in a live region: new words every 5 s at most, not every second.
    if (text && Date.now() - lastText >= 5000) {
      lastText = Date.now();
      text.textContent = progressText(body);
    }
  }, function () {
    progress.value = progress.max;
    if (progress.getAttribute("data-on-ready") === "offer" && text) {
      const link = document.createElement("a");
      link.href = window.location.href;
      link.textContent = "Show the ranked results";
      text.textContent = "The index is ready. ";
      text.appendChild(link);
      return;
    }
    if (text) { text.textContent = "The index is ready: loading the results."; }
    window.location.reload();
  });
}

const progress = document.getElementById("index-progress");
if (progress) { setupProgress(progress); }
