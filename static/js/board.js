// The board: keeps the top places of High and Low on screen and pages through the rest every few
// seconds, both columns together; rows that change glow briefly; kiosk mode.
//
// Rows may be replaced, added, moved or removed at any time by a live update: the layout runs
// again before the browser paints, keeping the page the board was on, so an update never makes
// the board jump or drop a row. Its words come from the page's language catalog ({% js_catalog %}).
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

  function lists() {
    return Array.from(root.querySelectorAll(".board-list"));
  }

  function rowsOf(list) {
    return Array.from(list.children).filter((row) => row.classList.contains("board-row"));
  }

  // How many rows fit between the top of the lists and the bottom of the window.
  function fitting(columns) {
    let top = 0;
    let height = 1;
    columns.forEach((rows, i) => {
      top = Math.max(top, lists()[i].getBoundingClientRect().top);
      rows.slice(0, PINNED + 1).forEach((row) => {
        row.hidden = false;
        height = Math.max(height, row.getBoundingClientRect().height);
      });
    });
    const room = window.innerHeight - top - (pager ? 28 : 0);
    return Math.max(2, Math.floor(room / height));
  }

  function layout() {
    const columns = lists().map(rowsOf);
    if (narrow.matches || !columns.length) {
      columns.flat().forEach((row) => {
        row.hidden = false;
        row.classList.remove("pinned", "last-pinned");
      });
      pages = 1;
      showPager();
      return;
    }
    const longest = Math.max(...columns.map((rows) => rows.length));
    const fits = fitting(columns);
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
    columns.forEach((rows) => {
      rows.forEach((row, i) => {
        const isPinned = i < pinned;
        row.classList.toggle("pinned", isPinned);
        row.classList.toggle("last-pinned", pages > 1 && i === pinned - 1);
        row.hidden = !(isPinned || Math.floor((i - pinned) / per) === page);
      });
    });
    showPager();
  }

  function showPager() {
    if (!pager) return;
    pager.hidden = pages <= 1;
    pager.textContent = interpolate(gettext("Page %(page)s of %(pages)s"), { page: page + 1, pages }, true);
  }

  function turn(step) {
    if (pages <= 1 || document.hidden) return;
    page = (page + step + pages) % pages;
    layout();
    if (reduced.matches) return;
    lists().forEach((list) => {
      list.classList.remove("turning");
      void list.offsetWidth; // restart the animation
      list.classList.add("turning");
    });
  }

  function rowsIn(nodes) {
    const found = [];
    nodes.forEach((node) => {
      if (node.nodeType !== 1) return;
      if (node.matches(".board-row")) found.push(node);
      node.querySelectorAll(".board-row").forEach((row) => found.push(row));
    });
    return found;
  }

  function placeOf(row) {
    const cell = row.querySelector("[data-place]");
    return cell ? cell.textContent : "";
  }

  function shows(row) {
    return row.dataset.sig + " " + placeOf(row);
  }

  // Rows arrive whole (a snapshot) or one by one (an update replaces a row by its id, inserts,
  // removes or moves rows, and sets the places that moved in the rows' place cells): lay out
  // again before the page is painted, and let a row whose place, hand or prize changed glow.
  const observer = new MutationObserver((mutations) => {
    const before = new Map();
    const added = [];
    const placed = new Map(); // a row whose place cell was set -> the place it showed before
    mutations.forEach((m) => {
      const cell = m.target;
      if (cell.nodeType === 1 && cell.matches("[data-place]")) {
        const row = cell.closest(".board-row");
        const was = Array.from(m.removedNodes, (node) => node.textContent).join("");
        // A pushed row's empty cell getting its place is no change.
        if (row && was && !placed.has(row)) placed.set(row, was);
        return;
      }
      rowsIn(m.removedNodes).forEach((row) => before.set(row.id, shows(row)));
      added.push(...rowsIn(m.addedNodes));
    });
    if (!before.size && !added.length && !placed.size) return;
    layout();
    added.forEach((row) => {
      const was = before.get(row.id);
      if (was !== undefined && was !== shows(row)) row.classList.add("changed");
    });
    placed.forEach((was, row) => {
      if (row.isConnected && placeOf(row) !== was) row.classList.add("changed");
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
