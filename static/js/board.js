// The board: places each player's High and Low cells in their columns, keeps the top places on
// screen and pages through the rest every few seconds; rows that change glow briefly; kiosk mode.
//
// Rows arrive from the server in any number and may be replaced at any time (a whole fragment or
// one `board-row-<id>` at a time): a MutationObserver lays the grid out again before the browser
// paints, keeping the page the board was on, so a live update never jumps or drops a row.
(function () {
  "use strict";
  const root = document.getElementById("board");
  if (!root) return;
  const pager = document.querySelector(".pager");
  const seconds = Math.max(2, Number(root.dataset.pageSeconds) || 8);
  const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");
  const narrow = window.matchMedia("(max-width: 900px)");
  const PINNED = 3; // the top places always on screen
  let page = 0;
  let pages = 1;

  function sorted(grid, column) {
    return Array.from(grid.querySelectorAll(".cell." + column)).sort(
      (a, b) => Number(a.dataset.index) - Number(b.dataset.index)
    );
  }

  function unpage(grid) {
    grid.classList.remove("paged");
    grid.querySelectorAll(".cell").forEach((cell) => {
      cell.hidden = false;
      cell.style.gridRow = "";
      cell.classList.remove("pinned", "last-pinned");
    });
  }

  // How many rows fit between the grid's top and the bottom of the window.
  function fitting(grid, sample) {
    sample.hidden = false;
    const head = grid.querySelector(".col-head");
    const rowHeight = Math.max(sample.getBoundingClientRect().height, 1);
    const top = grid.getBoundingClientRect().top + (head ? head.getBoundingClientRect().height : 0);
    const room = window.innerHeight - top - (pager ? 28 : 0);
    return Math.max(2, Math.floor(room / rowHeight));
  }

  function layout() {
    const grid = root.querySelector(".board-grid");
    if (!grid) {
      pages = 1;
      showPager();
      return;
    }
    if (narrow.matches) {
      unpage(grid);
      pages = 1;
      showPager();
      return;
    }
    grid.classList.add("paged");
    const columns = [sorted(grid, "high"), sorted(grid, "low")];
    const longest = Math.max(columns[0].length, columns[1].length);
    const sample = columns[0][0] || columns[1][0];
    const fits = sample ? fitting(grid, sample) : longest;
    let pinned = longest;
    let per = 1;
    if (longest > fits) {
      pinned = Math.min(PINNED, fits - 1);
      per = fits - pinned;
      pages = Math.ceil((longest - pinned) / per);
    } else {
      pages = 1;
    }
    if (page >= pages) page = pages - 1; // fewer pages after an update: stay as near as possible
    columns.forEach((cells) => {
      cells.forEach((cell, i) => {
        const isPinned = i < pinned;
        const onPage = isPinned || Math.floor((i - pinned) / per) === page;
        cell.classList.toggle("pinned", isPinned);
        cell.classList.toggle("last-pinned", pages > 1 && i === pinned - 1);
        cell.hidden = !onPage;
        cell.style.gridRow = onPage ? String(2 + (isPinned ? i : pinned + ((i - pinned) % per))) : "";
      });
    });
    showPager();
  }

  function showPager() {
    if (!pager) return;
    pager.hidden = pages <= 1;
    pager.textContent = "Page " + (page + 1) + " of " + pages;
  }

  function turn(step) {
    if (pages <= 1 || document.hidden) return;
    page = (page + (step || 1) + pages) % pages;
    const grid = root.querySelector(".board-grid");
    layout();
    if (grid && !reduced.matches) {
      grid.classList.remove("turning");
      void grid.offsetWidth; // restart the animation
      grid.classList.add("turning");
    }
  }

  // A cell's identity across replacements: its player's row and its column.
  function keyOf(cell) {
    const row = cell.closest(".board-row");
    return (row ? row.id : "") + (cell.classList.contains("high") ? ":high" : ":low");
  }

  function cellsIn(nodes) {
    const found = [];
    nodes.forEach((node) => {
      if (node.nodeType !== 1) return;
      if (node.matches(".cell")) found.push(node);
      node.querySelectorAll(".cell").forEach((cell) => found.push(cell));
    });
    return found;
  }

  const observer = new MutationObserver((mutations) => {
    const before = new Map();
    const added = [];
    mutations.forEach((m) => {
      cellsIn(m.removedNodes).forEach((cell) => before.set(keyOf(cell), cell.dataset.sig));
      added.push(...cellsIn(m.addedNodes));
    });
    if (!before.size && !added.length) return;
    layout();
    added.forEach((cell) => {
      const was = before.get(keyOf(cell));
      if (was !== undefined && was !== cell.dataset.sig) cell.classList.add("changed");
    });
  });
  observer.observe(root, { childList: true, subtree: true });

  layout();
  window.addEventListener("resize", layout);
  narrow.addEventListener("change", layout);
  let timer = setInterval(() => turn(1), seconds * 1000);
  // The arrow keys turn the page by hand (a remote's or a keyboard's); the timer starts over.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
    turn(event.key === "ArrowRight" ? 1 : -1);
    clearInterval(timer);
    timer = setInterval(() => turn(1), seconds * 1000);
  });

  // Kiosk: no chrome, full screen. Browsers allow full screen only from a click or a key, so
  // `?kiosk=1` asks at the first one.
  const button = document.querySelector("[data-kiosk]");
  function enterKiosk() {
    document.body.classList.add("kiosk");
    if (button) button.setAttribute("aria-pressed", "true");
    const url = new URL(window.location.href);
    url.searchParams.set("kiosk", "1");
    window.history.replaceState(null, "", url);
    const el = document.documentElement;
    if (!document.fullscreenElement && el.requestFullscreen) {
      el.requestFullscreen().catch(() => {});
    }
    layout();
  }
  function leaveKiosk() {
    document.body.classList.remove("kiosk");
    if (button) button.setAttribute("aria-pressed", "false");
    const url = new URL(window.location.href);
    url.searchParams.delete("kiosk");
    window.history.replaceState(null, "", url);
    layout();
  }
  if (button) button.addEventListener("click", enterKiosk);
  if (document.body.classList.contains("kiosk")) {
    const once = () => {
      if (document.body.classList.contains("kiosk")) enterKiosk();
    };
    document.addEventListener("click", once, { once: true });
    document.addEventListener("keydown", once, { once: true });
  }
  document.addEventListener("fullscreenchange", () => {
    if (!document.fullscreenElement && document.body.classList.contains("kiosk")) leaveKiosk();
  });
})();
