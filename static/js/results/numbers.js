/* Share Viewer, results widgets: numbers in words, as the page's own numbers read.

   A module imported by static/js/shortlist.js, index_progress.js and plots.js; no page
   loads it with a <script> tag (see shortlist_store.js for why). */

// Thousands with a thin space, like the page's own numbers (formatting.format_number).
const grouped = new Intl.NumberFormat("en-US");

export function formatCount(n) { return grouped.format(n).replace(/,/g, "\u2009"); }

export function plural(n, one, many) { return formatCount(n) + " " + (n === 1 ? one : many); }

/* A plotted value in a label or a tooltip: three decimals at most, else powers of ten. */
export function formatValue(value) {
  if (value === null || value === undefined || !isFinite(value)) { return "none"; }
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude >= 1e5 || magnitude < 1e-3)) { return value.toExponential(2); }
  return String(Math.round(value * 1000) / 1000);
}
