/* The 3D page: one Mol* viewer, fed MolViewSpec scenes made on the server.
   External file: the page's Content-Security-Policy allows no inline script.

   Loaded with `defer`; Mol*'s bundle (3.7 MB) is only preloaded by the page (<link
   id="molstar-bundle" rel="preload">, downloading while the HTML parses) and run from here
   after the first paint, so the page's text and legend are on screen before Mol* takes
   the main thread for its start-up; the PAE map is drawn once its data is there, in the
   first gap Mol*'s start-up leaves, well before the 3D picture.

   #structure-scenes holds {mode: MVS state} ("plddt", "chain"); the toolbar switches
   between them keeping the camera. The whole scene is loaded at once: loading the cartoon
   alone first and then the whole scene (extras after) was measured (bench_structure.py)
   to show the cartoon no sooner and to draw the whole 1.5-1.8x later, as Mol*'s
   loadMvsData replaces the scene and builds and compiles everything again. When it is
   loaded, #structure-viewer gets data-loaded="true" and data-color-theme (the scene
   shown: plddt, chain, compare or default); once the next frames are on screen,
   data-drawn="true". Tests and the benchmark wait for these; the toolbar
   and the PAE selection act from data-loaded on.

   Mol* is our own build of it (tools/molstar-build/: the viewer with only MolViewSpec).
   Rendering is kept flat and cheap from the canvas's creation on (no ambient occlusion,
   bloom or multi-sampling; SMAA stays where WebGL has a GPU, switched on once the first
   picture is drawn; plain blending, as nothing is transparent; set after creation, the
   canvas's empty first draws would compile those passes): the colours must match the
   legend (occlusion darkens them), and on a machine without a GPU those passes cost
   seconds per frame. Mol*'s MolViewSpec loader resets the canvas to Mol*'s defaults
   (occlusion on) at every load: the scenes' canvas node switches it off again
   (app/viewer/structure_pages/scene.py, FLAT), and our build draws nothing mid-load. The PAE
   heatmap (pae.js) asks for residues to be selected with a "structure:select" event; this
   script also answers it. */
(function () {
  "use strict";
  var host = document.getElementById("structure-viewer");
  var bundle = document.getElementById("molstar-bundle");
  if (!host || !(window.molstar || bundle)) { return; }
  var status = document.getElementById("structure-status");
  var source = document.getElementById("structure-scenes");
  var scenes = source ? JSON.parse(source.textContent) : {};
  var viewer = null;
  var busy = true;  // until the whole scene is loaded

  function say(text) { if (status) { status.textContent = text; } }

  // MVS resolves a download URL on its own; give it absolute same-origin URLs.
  function absolute(node) {
    if (node.kind === "download" && node.params && node.params.url) {
      node.params.url = new URL(node.params.url, window.location.href).href;
    }
    (node.children || []).forEach(absolute);
    return node;
  }
  Object.keys(scenes).forEach(function (mode) { absolute(scenes[mode].root); });

  function markMode(mode) {
    host.setAttribute("data-color-theme", mode);
    Array.prototype.forEach.call(document.querySelectorAll("[data-color-mode]"), function (b) {
      b.setAttribute("aria-pressed", b.getAttribute("data-color-mode") === mode ? "true" : "false");
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-legend]"), function (el) {
      el.hidden = el.getAttribute("data-legend") !== mode;
    });
  }

  function show(mode, keepCamera) {
    // The trees are made and checked on the server (app/viewer/structure_pages/scene.py); skip the re-check.
    return viewer.loadMvsData(JSON.stringify(scenes[mode]), "mvsj",
      { keepCamera: !!keepCamera, sanityChecks: false }).then(function () { markMode(mode); });
  }

  // Resolves two animation frames on: Mol* draws in its own frame, so the picture is shown.
  function painted() {
    return new Promise(function (resolve) {
      window.requestAnimationFrame(function () { window.requestAnimationFrame(resolve); });
    });
  }

  var FLAT = {
    multiSample: { mode: "off" },
    camera: { helper: { axes: { name: "off", params: {} } } },
    postprocessing: {
      occlusion: { name: "off", params: {} },
      bloom: { name: "off", params: {} },
      antialiasing: { name: "off", params: {} }  // until the first picture is on screen
    }
  };

  // Mol*'s edge smoothing (SMAA: three more shader passes) is switched on after the first
  // picture is on screen: in software WebGL each pass costs its compilation on the first
  // frame. The picture is the same, its edges smoothed a moment later. Where WebGL is drawn
  // by the CPU (SwiftShader, llvmpipe: no GPU, or a blocked one) it stays off: there its
  // first frame froze the page for 0.7-1.3 s after the picture was shown (the visitor could
  // not rotate), and its three full-screen passes ran on every frame of a rotation after.
  var smoothing = null;
  var SOFTWARE = /swiftshader|llvmpipe|softpipe|software|basic render/i;
  function softwareWebGL(canvas3d) {
    try {
      var gl = canvas3d.webgl.gl;
      var info = gl.getExtension("WEBGL_debug_renderer_info");
      var renderer = gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER);
      return SOFTWARE.test(String(renderer));
    } catch (unknown) { return false; }  // a renderer we cannot name: treat it as a GPU
  }
  function smoothEdges(canvas3d) {
    var on = !!(canvas3d && smoothing && smoothing.name !== "off" && !softwareWebGL(canvas3d));
    if (on) { canvas3d.setProps({ postprocessing: { antialiasing: smoothing } }); }
    host.setAttribute("data-smoothing", on ? "on" : "off");
  }
  function start(v) {
    viewer = v;
    smoothing = window.molstar.antialiasing || null;
    var initial = host.getAttribute("data-initial");
    if (scenes[initial]) { return show(initial, false); }
    return viewer.loadStructureFromUrl(host.getAttribute("data-url"),
      host.getAttribute("data-format") || "mmcif", false).then(function () {
      host.setAttribute("data-color-theme", "default");
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button") : null;
    if (!button || !viewer || busy) { return; }
    var mode = button.getAttribute("data-color-mode");
    if (mode && scenes[mode] && host.getAttribute("data-color-theme") !== mode) {
      busy = true;
      say("Recolouring…");
      show(mode, true).then(function () {
        busy = false;
        say(mode === "plddt" ? "Coloured by model confidence (pLDDT)." : "Coloured by chain.");
      }, function (error) { busy = false; say("Could not recolour."); warn(error); });
    } else if (button.id === "focus-ligand") {
      viewer.structureInteractivity({
        elements: [{ label_asym_id: button.getAttribute("data-chain") }], action: "focus"
      });
    } else if (button.id === "reset-view") {
      viewer.plugin.managers.camera.reset();
    }
  });

  // From the PAE heatmap: [{label_asym_id, beg_label_seq_id, end_label_seq_id}, ...].
  document.addEventListener("structure:select", function (event) {
    if (!viewer || host.getAttribute("data-loaded") !== "true") { return; }
    var elements = (event.detail && event.detail.elements) || [];
    viewer.structureInteractivity(elements.length
      ? { elements: elements, action: ["select", "focus"] }
      : { action: "select" });
  });

  // Performance marks of the start-up's steps (bench/bench_structure.py reads them).
  function mark(name) { if (window.performance && performance.mark) { performance.mark(name); } }

  function warn(error) { if (window.console) { window.console.warn(error); } }

  // In a partner's frame that does not allow XR (the embed code does not ask for it),
  // Mol*'s probe for VR/AR headsets is a "Permissions policy violation" in the partner's
  // console. XR cannot be used there anyway: hide it from Mol* so it does not probe.
  var policy = document.featurePolicy;
  if (navigator.xr && policy && policy.allowsFeature && !policy.allowsFeature("xr-spatial-tracking")) {
    try {
      Object.defineProperty(navigator, "xr", { value: undefined, configurable: true });
    } catch (ignored) { /* the probe then runs: a console message, nothing worse */ }
  }

  function create() {
    return window.molstar.Viewer.create(host, {
      // Flat from the canvas's creation on (it draws, empty, from then).
      canvas3d: FLAT,
      // The scenes are opaque: plain blending draws them as weighted blended
      // transparency (Mol*'s default) does, with two passes less on every frame.
      transparency: "blended",
      // Mol* draws into its own buffers and smooths edges itself (SMAA): a multisampled
      // canvas would only cost its resolve on every frame.
      disableAntialiasing: true,
      layoutIsExpanded: false,
      layoutShowControls: false,
      layoutShowRemoteState: false,
      layoutShowSequence: true,
      layoutShowLog: false,
      layoutShowLeftPanel: false,
      viewportShowExpand: true,
      viewportShowSelectionMode: false,
      viewportShowAnimation: false,
      collapseLeftPanel: true,
      // Only MolViewSpec: the other extensions are unused here, cost start-up time, and
      // some would look things up on remote servers.
      extensions: ["mvs"],
      // Nothing may be fetched from a third-party host.
      pdbProvider: "pdbe",
      emdbProvider: "pdbe",
    });
  }

  function failed(error) {
    busy = false;
    say("The structure could not be shown in this browser. Download it instead.");
    host.setAttribute("data-loaded", "error");
    warn(error);
  }

  // Mol*'s bundle: already run (a page that still loads it itself), or run now from the
  // preloaded copy (the same URL: the browser takes it from its cache).
  function molstarReady() {
    if (window.molstar) { return Promise.resolve(); }
    return new Promise(function (resolve, reject) {
      var script = document.createElement("script");
      script.src = bundle.href;
      script.onload = resolve;
      script.onerror = function () { reject(new Error("Mol* did not load")); };
      document.body.appendChild(script);
    });
  }

  // After the first paint (a frame, then a task: the frame is painted by then). Not after
  // the PAE map: its data (pae.json) is made by the server while the main thread would
  // idle (0.2-0.4 s); the bundle runs in that time instead, and the map, drawn in the first
  // gap Mol*'s start-up leaves, is still usable well before the 3D picture is drawn.
  window.requestAnimationFrame(function () {
    window.setTimeout(function () {
      mark("structure:bundle");
      molstarReady()
        .then(function () { mark("structure:create"); return create(); })
        .then(function (v) { mark("structure:load"); return start(v); }).then(function () {
        mark("structure:loaded");
        busy = false;
        say("Drag to rotate, scroll to zoom, right-drag to move.");
        host.setAttribute("data-loaded", "true");
        return painted();
      }).then(function () {
        mark("structure:drawn");
        host.setAttribute("data-drawn", "true");
        smoothEdges(viewer.plugin.canvas3d);
      }, failed);
    }, 0);
  });
})();
