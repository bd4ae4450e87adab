// A display link's page (web/display.py): every half minute it asks what the link shows now and
// reloads when that changed (a series' display follows its next event) or when House revoked the
// link (410), so the projector never keeps a board it may no longer show. A revocation also
// closes the board's socket at once (live.js reloads on that close); this is the slow path.
(function () {
  "use strict";
  const root = document.querySelector("[data-display-watch]");
  if (!root) return;
  const url = root.getAttribute("data-display-watch");
  const showing = root.getAttribute("data-display-showing");
  const EVERY = 30000;

  async function check() {
    try {
      const response = await fetch(url, { credentials: "omit", cache: "no-store" });
      if (response.status === 404 || response.status === 410) {
        window.location.reload();
        return;
      }
      if (response.ok) {
        const now = await response.json();
        if (now.showing !== showing) {
          window.location.reload();
          return;
        }
      }
    } catch (error) {
      // Offline for a moment: the next check tries again.
    }
    setTimeout(check, EVERY);
  }

  setTimeout(check, EVERY);
})();
