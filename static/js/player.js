// The player's event page: choosing cards, reporting games, and honest waiting states.
// Event delegation on document, so handlers survive htmx swapping the page section.
(function () {
  "use strict";

  if (window.htmx) {
    // A confirmation that never comes must not be resent blindly: after 12 s the button
    // offers "Check again", which reloads the saved state instead.
    window.htmx.config.timeout = 12000;
  }

  function startForm(el) { return el.closest(".start-form"); }

  function updateStart(form) {
    const keep = parseInt(form.dataset.keep, 10);
    const chosen = form.querySelectorAll('.choice[aria-pressed="true"]');
    form.querySelector("[data-count]").textContent = String(chosen.length);
    form.querySelectorAll('input[name="slot"]').forEach((input) => input.remove());
    chosen.forEach((button) => {
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = "slot";
      input.value = button.dataset.slot;
      form.appendChild(input);
    });
    const submit = form.querySelector('button[type="submit"]');
    const exact = chosen.length === keep;
    submit.disabled = !exact || document.body.classList.contains("is-offline");
    submit.textContent = exact ? submit.dataset.confirmLabel : `Choose ${keep - chosen.length} more`;
  }

  document.addEventListener("click", (event) => {
    const choice = event.target.closest(".start-form .choice");
    if (choice) {
      const form = startForm(choice);
      const keep = parseInt(form.dataset.keep, 10);
      const pressed = choice.getAttribute("aria-pressed") === "true";
      const count = form.querySelectorAll('.choice[aria-pressed="true"]').length;
      if (pressed || count < keep) {
        choice.setAttribute("aria-pressed", pressed ? "false" : "true");
      }
      updateStart(form);
      return;
    }
    const report = event.target.closest("[data-report]");
    if (report) {
      const dialog = document.querySelector(".report-sheet");
      const outcome = report.dataset.report;
      dialog.querySelector('input[name="outcome"]').value = outcome;
      dialog.querySelector("[data-outcome-word]").textContent = outcome === "win" ? "won" : "lost";
      dialog.showModal();
      dialog.querySelector("#opponent").focus();
      return;
    }
    if (event.target.closest("[data-close]")) {
      event.target.closest("dialog").close();
      return;
    }
    const again = event.target.closest("[data-check-again]");
    if (again) {
      window.htmx.trigger("#player", "live-refresh");
    }
  });

  // Keyboard: the face-down cards are buttons already (Enter/Space toggle them).

  document.addEventListener("htmx:beforeRequest", (event) => {
    const form = event.target.closest("form");
    const submit = form && form.querySelector('button[type="submit"]');
    if (submit) {
      submit.dataset.label = submit.textContent;
      submit.textContent = "Saving…";
    }
  });

  function offerCheckAgain(event) {
    const form = event.target.closest("form");
    const submit = form && form.querySelector('button[type="submit"]');
    if (!submit) return;
    const again = document.createElement("button");
    again.type = "button";
    again.className = submit.className;
    again.dataset.checkAgain = "";
    again.textContent = "Check again";
    submit.replaceWith(again);
    const dialog = form.closest("dialog");
    if (dialog) dialog.close();
  }
  document.addEventListener("htmx:timeout", offerCheckAgain);
  document.addEventListener("htmx:sendError", offerCheckAgain);

  // A live update must not undo what the player is in the middle of: an open report sheet, or
  // cards picked but not confirmed yet. Such an update keeps the page as it is, and the newest
  // panel is swapped in once the player is done (the sheet closed, or every pick undone).
  let deferred = false; // a refetch ("Check again") held back
  let held = false; // a pushed panel held back (live.js keeps it)

  function midChoice() {
    return Boolean(
      document.querySelector(".report-sheet[open]") ||
        document.querySelector('.start-form .choice[aria-pressed="true"]') ||
        document.querySelector(".keep-form input:checked")
    );
  }

  function refreshIfDeferred() {
    if (midChoice()) return;
    if (held) {
      held = false;
      const player = document.getElementById("player");
      if (player && window.syndicateLive && window.syndicateLive.swapHeld) {
        window.syndicateLive.swapHeld(player);
      }
    }
    if (deferred) {
      deferred = false;
      window.htmx.trigger("#player", "live-refresh");
    }
  }

  document.addEventListener("live:beforeswap", (event) => {
    if (event.target.id !== "player") return;
    if (midChoice()) {
      event.preventDefault();
      held = true;
      return;
    }
    held = false;
    const dialog = document.querySelector(".report-sheet[open]");
    if (dialog) dialog.close();
  });

  document.addEventListener("htmx:beforeSwap", (event) => {
    const config = event.detail.requestConfig;
    if (config && config.verb === "get" && midChoice()) {
      event.detail.shouldSwap = false;
      deferred = true;
      return;
    }
    deferred = false; // what is swapped in now is the newest state
    const dialog = document.querySelector(".report-sheet[open]");
    if (dialog) dialog.close();
  });
  // "close" does not bubble: listen in the capture phase.
  document.addEventListener("close", refreshIfDeferred, true);
  document.addEventListener("click", () => setTimeout(refreshIfDeferred, 0));

  // "Not kept" cards fade out; then they are gone.
  document.addEventListener("animationend", (event) => {
    if (event.target.classList.contains("fade-away")) event.target.remove();
  });
})();
