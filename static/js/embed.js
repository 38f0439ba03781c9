/* Embedding: an embedded page (?embed=1) tells the page that frames it how tall it is, and
   a normal page copies its embed code.

   Height: window.parent.postMessage({type: "share-viewer:height", height: N}, "*") once
   the page is laid out, on load, and whenever its content or size changes (mutations,
   image loads, ResizeObserver), also while the host has it scrolled out of view. Only a
   number is sent, never the URL (it holds the share id), so "*" gives nothing away; the
   host's snippet (docs/viewer.md, "Embedding") checks the sender's origin and frame.
   A message goes only when the height changed, 50 ms after a change is seen (changes in
   between share it), and at most MAX_PER_SECOND a second, so a page whose content follows
   the frame's height cannot start a storm. Pages that fill their frame instead
   ([data-embed-fill]: the 3D page, laid out to fit any frame) send nothing: the host
   gives them a size. The compare page grows like the others (its viewer has a fixed
   height when embedded).
   External file (no inline script), so the strict Content-Security-Policy holds. */
(function () {
  "use strict";
  var MAX_PER_SECOND = 10;

  function setupCopy() {
    var button = document.querySelector("[data-embed-copy]");
    var code = document.querySelector("[data-embed-code]");
    if (!button || !code) { return; }
    var status = document.querySelector("[data-embed-copy-status]");
    button.addEventListener("click", function () {
      window.ShareViewer.copyText(code.value).then(function () {
        if (status) { status.textContent = "Copied: paste it into the page that shows this one."; }
      }, function () {
        var details = code.closest("details");
        if (details) { details.open = true; }
        code.focus();
        code.select();
        if (status) { status.textContent = "Copying was refused: the code is selected, copy it with the keyboard."; }
      });
    });
  }

  function contentHeight() {
    var body = document.body;
    return Math.ceil(Math.max(body.scrollHeight, body.getBoundingClientRect().height));
  }

  function setupHeight() {
    if (!document.body.classList.contains("embed") || window.parent === window) { return; }
    if (document.querySelector("[data-embed-fill]")) { return; }
    var last = -1;
    var scheduled = false;
    var sent = [];
    function send() {
      scheduled = false;
      var height = contentHeight();
      if (height === last || height <= 0) { return; }
      var now = Date.now();
      sent = sent.filter(function (time) { return now - time < 1000; });
      if (sent.length >= MAX_PER_SECOND) {
        scheduled = true;
        window.setTimeout(send, 1000 - (now - sent[0]));
        return;
      }
      sent.push(now);
      last = height;
      window.parent.postMessage({type: "share-viewer:height", height: height}, "*");
    }
    function schedule() {
      if (scheduled) { return; }
      scheduled = true;
      // A timer, not requestAnimationFrame: Chromium stops rendering a cross-origin frame
      // scrolled out of the host's view (no animation frames, no ResizeObserver), and the
      // host must still learn the height of an embed further down its page.
      window.setTimeout(send, 50);
    }
    if (window.ResizeObserver) {
      new window.ResizeObserver(schedule).observe(document.body);
    }
    // Content that arrives later (the plots, pages of rows): mutations are reported even
    // while the frame is not rendered; images that finish loading change the height too.
    if (window.MutationObserver) {
      new window.MutationObserver(schedule).observe(document.body,
        {childList: true, subtree: true, attributes: true, characterData: true});
    }
    document.addEventListener("load", schedule, true);
    window.addEventListener("resize", schedule);
    window.addEventListener("load", schedule);
    schedule();
  }

  function start() {
    setupCopy();
    setupHeight();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
}());
