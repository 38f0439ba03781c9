/* Share Viewer progressive enhancements: copy buttons, page-size autosubmit,
   Tab stops only on scroll boxes that scroll.
   External file (no inline script), so the strict Content-Security-Policy holds. */
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  // Fallback for plain-http origins (and a refused clipboard): a temporary textarea.
  function legacyCopy(text) {
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.className = "visually-hidden";
      document.body.appendChild(area);
      area.select();
      try { document.execCommand("copy") ? resolve() : reject(new Error("copy failed")); }
      catch (err) { reject(err); }
      finally { document.body.removeChild(area); }
    });
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(function () { return legacyCopy(text); });
    }
    return legacyCopy(text);
  }

  // Shared with the other scripts of the page (shortlist.js copies the shortlist's link).
  window.ShareViewer = { copyText: copyText };

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest(".copy-btn") : null;
    if (!button) { return; }
    copyText(button.getAttribute("data-copy") || "").then(function () {
      button.textContent = "Copied";
      button.classList.add("copied");
      setTimeout(function () { button.textContent = "Copy"; button.classList.remove("copied"); }, 1500);
    }, function () { button.textContent = "Select and copy"; });
  });

  Array.prototype.forEach.call(document.querySelectorAll("select.autosubmit"), function (select) {
    select.addEventListener("change", function () { select.form.submit(); });
  });

  // Scroll boxes (wide tables, long sequences) are Tab stops so the keyboard can scroll
  // them, but only while there is something to scroll: a table that fits a wide screen is
  // no extra stop. Checked again when the window changes size (a phone turned sideways).
  var scrollBoxes = document.querySelectorAll(".table-scroll[tabindex], pre.seq[tabindex]");
  function updateScrollStops() {
    Array.prototype.forEach.call(scrollBoxes, function (box) {
      var scrolls = box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
      if (scrolls) { box.setAttribute("tabindex", "0"); }
      else if (box !== document.activeElement) { box.removeAttribute("tabindex"); }
    });
  }
  var pending = false;
  window.addEventListener("resize", function () {
    if (pending) { return; }
    pending = true;
    window.requestAnimationFrame(function () { pending = false; updateScrollStops(); });
  });
  // A table that grows or shrinks without a window resize (the results page's "Show all
  // columns" on a phone) is checked again too.
  if (window.ResizeObserver) {
    var observer = new ResizeObserver(function () { updateScrollStops(); });
    Array.prototype.forEach.call(scrollBoxes, function (box) {
      if (box.firstElementChild) { observer.observe(box.firstElementChild); }
    });
  }
  updateScrollStops();
})();
