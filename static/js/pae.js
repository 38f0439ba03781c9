/* The PAE heatmap beside the 3D view (share/structure/page.html).
   Fetches #pae-panel's data-url (pae.json, the shape app/viewer/structure/pae.py declares:
   Heatmap = n, step, max, values as base64 bytes, tokens [chain, seq, name], chains
   [{chain, start, end, label}], linked; or NoHeatmap = {n: 0}) at once, draws it on a canvas with chain boundary lines, shows the value under
   the pointer, and on a dragged rectangle names the residue ranges and asks structure.js
   to select them in Mol* (a "structure:select" event). Chains are labelled along both
   axes at their first token. From the keyboard: the focused canvas moves a cursor cell
   with the arrow keys (Shift: 10 tokens, Home/End: the ends), reads the pair and its error
   out through #pae-cursor (aria-live), and Enter selects that cell as a click does.
   n = 0: the panel stays hidden; an answer {error} (too large, busy) shows the panel with
   that reason in #pae-unavailable instead of the map. When drawn, the panel carries data-ready="true"; drawn
   or not (no heatmap, an error), it then carries data-settled="true". Drawn in the first
   gap Mol*'s start-up (structure.js) leaves, the map is usable before the 3D view. */
(function () {
  "use strict";
  var panel = document.getElementById("pae-panel");
  var canvas = document.getElementById("pae-canvas");
  if (!panel || !canvas || !window.fetch) { return; }
  var hover = document.getElementById("pae-hover");
  var readout = document.getElementById("pae-cursor");
  var selection = document.getElementById("pae-selection");
  var unavailable = document.getElementById("pae-unavailable");
  var data = null, image = null, drag = null, chosen = null, cursor = null;
  // AlphaFold DB's PAE palette: dark green (confident) to white (30 A and more).
  var STOPS = [[0, [11, 79, 31]], [10, [47, 143, 58]], [20, [159, 211, 154]], [30, [255, 255, 255]]];

  function colour(value) {
    for (var k = 1; k < STOPS.length; k++) {
      if (value <= STOPS[k][0] || k === STOPS.length - 1) {
        var a = STOPS[k - 1], b = STOPS[k];
        var t = Math.max(0, Math.min(1, (value - a[0]) / (b[0] - a[0])));
        return [0, 1, 2].map(function (c) { return Math.round(a[1][c] + t * (b[1][c] - a[1][c])); });
      }
    }
    return STOPS[STOPS.length - 1][1];
  }

  function build(payload) {
    var n = payload.n, raw = atob(payload.values);
    var table = [];
    for (var v = 0; v < 256; v++) { table.push(colour(v * payload.step)); }
    var off = document.createElement("canvas");
    off.width = n; off.height = n;
    var ctx = off.getContext("2d");
    var pixels = ctx.createImageData(n, n);
    var values = new Uint8Array(n * n);
    for (var i = 0; i < n * n; i++) {
      var byte = raw.charCodeAt(i), rgb = table[byte];
      values[i] = byte;
      pixels.data[4 * i] = rgb[0]; pixels.data[4 * i + 1] = rgb[1];
      pixels.data[4 * i + 2] = rgb[2]; pixels.data[4 * i + 3] = 255;
    }
    ctx.putImageData(pixels, 0, 0);
    payload.bytes = values;
    return off;
  }

  function draw() {
    var ctx = canvas.getContext("2d"), size = canvas.width, n = data.n, scale = size / n;
    ctx.imageSmoothingEnabled = false;
    ctx.clearRect(0, 0, size, size);
    ctx.drawImage(image, 0, 0, size, size);
    ctx.strokeStyle = "#222";
    ctx.lineWidth = 1;
    data.chains.slice(1).forEach(function (c) {
      var at = Math.round(c.start * scale) + 0.5;
      ctx.beginPath(); ctx.moveTo(at, 0); ctx.lineTo(at, size); ctx.stroke();
      ctx.beginPath(); ctx.moveTo(0, at); ctx.lineTo(size, at); ctx.stroke();
    });
    labels(ctx, size, scale);
    if (cursor) {
      // A cell of at least 4 px, so the cursor shows on large matrices too.
      var side = Math.max(4, scale);
      ctx.strokeStyle = "#1c5fb8"; ctx.lineWidth = 2;
      ctx.strokeRect(cursor.j * scale + scale / 2 - side / 2, cursor.i * scale + scale / 2 - side / 2, side, side);
    }
    var box = drag || chosen;
    if (box) {
      var r = rect(box);
      ctx.strokeStyle = "#d6336c"; ctx.lineWidth = 2;
      ctx.strokeRect(r.j0 * scale, r.i0 * scale, (r.j1 - r.j0 + 1) * scale, (r.i1 - r.i0 + 1) * scale);
    }
  }

  // Each chain's name at its first token: along the top (x axis) and down the left (y).
  function labels(ctx, size, scale) {
    var font = Math.max(10, Math.round(size / 32));
    ctx.font = font + "px sans-serif";
    ctx.textBaseline = "top";
    data.chains.forEach(function (c) {
      var text = c.chain, at = Math.round(c.start * scale) + 3, width = ctx.measureText(text).width;
      if ((c.end - c.start + 1) * scale < width + 6) { return; }  // no room: hover names it
      ctx.fillStyle = "rgba(255,255,255,0.85)";
      ctx.fillRect(at - 2, 1, width + 4, font + 3);
      ctx.fillRect(1, at - 2, width + 4, font + 3);
      ctx.fillStyle = "#222";
      ctx.fillText(text, at, 2);
      ctx.fillText(text, 3, at);
    });
  }

  function rect(box) {
    return { i0: Math.min(box.i0, box.i1), i1: Math.max(box.i0, box.i1),
             j0: Math.min(box.j0, box.j1), j1: Math.max(box.j0, box.j1) };
  }

  function cell(event) {
    var bounds = canvas.getBoundingClientRect();
    var x = (event.clientX - bounds.left) / bounds.width, y = (event.clientY - bounds.top) / bounds.height;
    var n = data.n;
    return { i: Math.max(0, Math.min(n - 1, Math.floor(y * n))),
             j: Math.max(0, Math.min(n - 1, Math.floor(x * n))) };
  }

  function chainLabel(index) {
    for (var k = 0; k < data.chains.length; k++) {
      var c = data.chains[k];
      if (index >= c.start && index <= c.end) { return c.label; }
    }
    return "Token";
  }

  function tokenText(index) {
    var t = data.tokens[index];
    if (!t) { return "token " + (index + 1); }
    return chainLabel(index) + (t[1] === null ? " ligand atom " + (index - first(index) + 1)
                                                : " " + t[1] + " " + t[2]);
  }

  function first(index) {
    for (var k = 0; k < data.chains.length; k++) {
      if (index >= data.chains[k].start && index <= data.chains[k].end) { return data.chains[k].start; }
    }
    return 0;
  }

  function value(i, j) { return data.bytes[i * data.n + j] * data.step; }

  // Residue ranges of tokens lo..hi, split at chain boundaries: text and Mol* elements.
  function spans(lo, hi) {
    var out = [];
    for (var k = lo; k <= hi; k++) {
      var t = data.tokens[k];
      if (!t) { continue; }
      var last = out[out.length - 1];
      if (last && last.chain === t[0] && (t[1] === null ? last.ligand : last.end === t[1] - 1)) {
        if (t[1] !== null) { last.end = t[1]; }
      } else {
        out.push({ chain: t[0], label: chainLabel(k), begin: t[1], end: t[1], ligand: t[1] === null });
      }
    }
    return out;
  }

  function describe(list) {
    return list.map(function (s) {
      return s.label + (s.ligand ? " ligand" : " " + (s.begin === s.end ? s.begin : s.begin + "–" + s.end));
    }).join(", ");
  }

  function elements(list) {
    return list.map(function (s) {
      return s.ligand ? { label_asym_id: s.chain }
        : { label_asym_id: s.chain, beg_label_seq_id: s.begin, end_label_seq_id: s.end };
    });
  }

  function choose(box) {
    var r = rect(box), sum = 0, count = 0;
    for (var i = r.i0; i <= r.i1; i++) {
      for (var j = r.j0; j <= r.j1; j++) { sum += value(i, j); count++; }
    }
    var rows = spans(r.i0, r.i1), cols = spans(r.j0, r.j1);
    selection.textContent = data.linked
      ? "Selected: aligned on " + describe(rows) + "; error at " + describe(cols) +
        " (mean " + (sum / count).toFixed(1) + " Å)."
      : "Selected tokens " + (r.i0 + 1) + "–" + (r.i1 + 1) + " × " + (r.j0 + 1) + "–" + (r.j1 + 1) +
        " (mean " + (sum / count).toFixed(1) + " Å).";
    panel.setAttribute("data-selected", "true");
    if (data.linked) {
      document.dispatchEvent(new CustomEvent("structure:select",
        { detail: { elements: elements(rows).concat(elements(cols)) } }));
    }
  }

  canvas.addEventListener("mousedown", function (event) {
    if (!data) { return; }
    var c = cell(event);
    drag = { i0: c.i, j0: c.j, i1: c.i, j1: c.j };
    event.preventDefault();
  });
  canvas.addEventListener("mousemove", function (event) {
    if (!data) { return; }
    var c = cell(event);
    hover.textContent = readAt(c);
    if (drag) { drag.i1 = c.i; drag.j1 = c.j; draw(); }
  });
  window.addEventListener("mouseup", function () {
    if (!drag) { return; }
    chosen = drag; drag = null;
    draw();
    choose(chosen);
  });

  function readAt(c) {
    return tokenText(c.i) + " × " + tokenText(c.j) + ": " + value(c.i, c.j).toFixed(1) + " Å";
  }

  var MOVES = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  canvas.addEventListener("keydown", function (event) {
    if (!data) { return; }
    var n = data.n, step = event.shiftKey ? 10 : 1, move = MOVES[event.key];
    if (!cursor) { cursor = { i: 0, j: 0 }; } else if (move) {
      cursor = { i: Math.max(0, Math.min(n - 1, cursor.i + move[0] * step)),
                 j: Math.max(0, Math.min(n - 1, cursor.j + move[1] * step)) };
    }
    if (event.key === "Home") { cursor = { i: cursor.i, j: 0 }; }
    if (event.key === "End") { cursor = { i: cursor.i, j: n - 1 }; }
    if (event.key === "Enter" || event.key === " ") {
      chosen = { i0: cursor.i, j0: cursor.j, i1: cursor.i, j1: cursor.j };
      draw();
      choose(chosen);
      event.preventDefault();
      return;
    }
    if (!move && event.key !== "Home" && event.key !== "End") { return; }
    event.preventDefault();  // arrows move the cursor, not the page
    var text = readAt(cursor);
    hover.textContent = text;
    readout.textContent = text;
    draw();
  });
  canvas.addEventListener("focus", function () {
    if (data && !readout.textContent) {
      readout.textContent = "Heatmap of " + data.n + " tokens. Arrow keys move, Enter selects.";
    }
  });

  function load() {
    fetch(panel.getAttribute("data-url"), { credentials: "same-origin" }).then(function (response) {
      // A 422 or 503 answers {error: why}: the panel says the map is unavailable and why.
      return response.json().catch(function () { return { n: 0 }; });
    }).then(function (payload) {
      if (payload && payload.error && unavailable) {
        unavailable.textContent = payload.error;
        unavailable.hidden = false;
        canvas.parentNode.hidden = true;
        panel.hidden = false;
        return;
      }
      if (!payload || !payload.n) { return; }
      data = payload;
      image = build(payload);
      var size = Math.max(320, Math.min(960, payload.n)) * (window.devicePixelRatio || 1);
      canvas.width = canvas.height = Math.round(size);
      panel.hidden = false;
      draw();
      panel.setAttribute("data-ready", "true");
    }, function () { /* no heatmap without its data; the 3D view stands alone */ }).then(function () {
      panel.setAttribute("data-settled", "true");
    });
  }

  load();
})();
