// The board: rows whose place or hand changed glow briefly after a live update.
(function () {
  "use strict";
  let before = new Map();
  function remember() {
    before = new Map();
    document.querySelectorAll(".board-row").forEach((row) => before.set(row.dataset.key, row.dataset.sig));
  }
  document.addEventListener("live:beforeswap", remember);
  document.addEventListener("htmx:beforeSwap", remember);
  const glow = () => {
    document.querySelectorAll(".board-row").forEach((row) => {
      if (before.get(row.dataset.key) !== row.dataset.sig) row.classList.add("changed");
    });
  };
  document.addEventListener("live:swapped", glow);
  document.addEventListener("htmx:afterSwap", glow);
})();
