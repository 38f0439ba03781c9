// Sign-in pages: a sign-in link opened in the browser that asked for it submits its
// confirmation form by itself (the form works without JavaScript too). GET never signs
// in, so mail scanners that fetch links cannot use them up.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  var form = document.querySelector("form[data-signin-autosubmit]");
  if (form) { form.requestSubmit ? form.requestSubmit() : form.submit(); }
});
