/* House's announcements on the player page: live.js hands each one over ("live:announcement");
 * its item was rendered on the server (web/_announcement.html) and goes to the top of the list.
 * They are shown while the event is not final: the panel pushed at finalization (it carries the
 * final results, [data-final-results]) takes them down, as a page loaded after it never shows them. */
(function () {
  "use strict";
  var SHOWN = 5;

  function unpinIfFinal(event) {
    var panel = document.getElementById("player");
    var section = document.getElementById("announcements");
    if (!panel || !section || (event.target !== panel && event.target !== document)) {
      return;
    }
    if (panel.querySelector("[data-final-results]")) {
      section.hidden = true;
      section.querySelector(".announcement-list").replaceChildren();
    }
  }
  document.addEventListener("live:swapped", unpinIfFinal);
  document.addEventListener("htmx:afterSwap", unpinIfFinal);

  document.addEventListener("live:announcement", function (event) {
    var message = event.detail || {};
    var section = document.getElementById("announcements");
    var data = message.data || {};
    if (!section || typeof message.html !== "string") {
      return;
    }
    var list = section.querySelector(".announcement-list");
    if (list.querySelector('[data-announcement="' + Number(data.id) + '"]')) {
      return; // already shown
    }
    var holder = document.createElement("template");
    holder.innerHTML = message.html;
    var item = holder.content.firstElementChild;
    if (!item) {
      return;
    }
    list.insertBefore(item, list.firstElementChild);
    while (list.children.length > SHOWN) {
      list.removeChild(list.lastElementChild);
    }
    section.hidden = false;
    if (navigator.vibrate) {
      navigator.vibrate(100);
    }
  });
})();
