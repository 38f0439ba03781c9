/* The glossary's way back: a Back button, shown only when the tab has a page to go back
   to. The glossary lives outside any share and the viewer sends no Referer, so the page
   never knows the share's address (a secret); the browser's history does. */
(function () {
  "use strict";
  var back = document.querySelector("[data-history-back]");
  if (!back || window.history.length < 2) { return; }
  back.hidden = false;
  back.querySelector("button").addEventListener("click", function () { window.history.back(); });
}());
