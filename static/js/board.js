// The board: rows whose place or hand changed glow briefly after a live refresh.
(function () {
  "use strict";
  let before = new Map();
  function remember() {
    before = new Map();
    document.querySelectorAll(".board-row").forEach((row) => before.set(row.dataset.key, row.dataset.sig));
  }
  document.addEventListener("htmx:beforeSwap", remember);
  document.addEventListener("htmx:afterSwap", () => {
    document.querySelectorAll(".board-row").forEach((row) => {
      if (before.get(row.dataset.key) !== row.dataset.sig) row.classList.add("changed");
    });
  });
})();
