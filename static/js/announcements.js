/* House's announcements on the player page: live.js hands each one over ("live:announcement");
 * its item was rendered on the server (web/_announcement.html) and goes to the top of the list. */
(function () {
  "use strict";
  var SHOWN = 5;

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
