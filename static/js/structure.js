/* Opens the result's structure file (served by the viewer, same origin) in Mol*.
   External file: the page's Content-Security-Policy allows no inline script. */
(function () {
  "use strict";
  var host = document.getElementById("structure-viewer");
  if (!host || !window.molstar) { return; }
  var status = document.getElementById("structure-status");
  function say(text) { if (status) { status.textContent = text; } }
  window.molstar.Viewer.create(host, {
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
    // Nothing may be fetched from a third-party host.
    pdbProvider: "pdbe",
    emdbProvider: "pdbe",
    disableAntialiasing: false
  }).then(function (viewer) {
    return viewer.loadStructureFromUrl(host.getAttribute("data-url"),
      host.getAttribute("data-format") || "mmcif", false);
  }).then(function () {
    say("Drag to rotate, scroll to zoom, right-drag to move.");
    host.setAttribute("data-loaded", "true");
  }, function (error) {
    say("The structure could not be shown in this browser. Download it instead.");
    host.setAttribute("data-loaded", "error");
    if (window.console) { window.console.warn(error); }
  });
})();
