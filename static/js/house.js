// The House dashboard: reason dialogs, confirmations, client-side filters, pool adjustment rows,
// ticking ages of pending selections, tables that show they scroll. Event delegation on document, so handlers survive htmx swaps.
// Its words come from the page's language catalog ({% js_catalog %}: gettext, interpolate).
(function () {
  "use strict";

  const OVERDUE_SECONDS = 180;
  const live = () => document.getElementById("house-live");

  // --- dialogs that need a reason ------------------------------------------------------------

  function openDialog(button) {
    const dialog = document.getElementById(button.dataset.dialog);
    if (!dialog) return;
    const form = dialog.querySelector("form");
    form.reset();
    form.action = button.dataset.url;
    dialog.querySelectorAll("[data-fill]").forEach((el) => {
      el.textContent = button.dataset[el.dataset.fill] || "";
    });
    dialog.querySelectorAll("[data-fill-value]").forEach((el) => {
      el.value = button.dataset[el.dataset.fillValue] || "";
    });
    const slot = dialog.querySelector("[data-fill-template]");
    if (slot) {
      slot.replaceChildren();
      const template = document.getElementById(button.dataset.template || "");
      if (template) slot.appendChild(template.content.cloneNode(true));
    }
    form.querySelectorAll("button[type=submit]").forEach((b) => {
      b.textContent = b.dataset.label || b.textContent;
    });
    const games = form.querySelector("#dlg-correct-game");
    if (games) preselectCorrection(games);
    updateConfirm(form);
    dialog.showModal();
    const first = form.querySelector("select, input:not([type=hidden]), textarea");
    if (first) first.focus();
  }

  function updateConfirm(form) {
    const confirm = form.querySelector("[data-confirm]");
    if (!confirm) return;
    const reason = form.querySelector("[data-reason]");
    const hasReason = !reason || reason.value.trim().length > 0;
    let complete = true;
    const keep = parseInt(form.dataset.keep || "0", 10);
    if (keep) {
      const chosen = form.querySelectorAll('input[name="slot"]:checked').length;
      const counter = form.querySelector("[data-count]");
      if (counter) counter.textContent = String(chosen);
      complete = chosen === keep;
      form.querySelectorAll('input[name="slot"]').forEach((box) => {
        box.disabled = !box.checked && chosen >= keep;
      });
    } else {
      complete = Array.from(form.querySelectorAll("input, select"))
        .filter((el) => el !== reason)
        .every((el) => el.checkValidity());
    }
    confirm.disabled = !(hasReason && complete) || document.body.classList.contains("is-offline");
  }

  document.addEventListener("input", (event) => {
    const form = event.target.closest("form[data-needs-reason]");
    if (form) updateConfirm(form);
    const filter = event.target.closest("[data-filter]");
    if (filter) applyFilters();
  });

  // Correcting a game: the new result is the other one, so preselect it.
  function preselectCorrection(select) {
    const option = select.selectedOptions[0];
    const form = select.closest("form");
    if (!option || !form) return;
    const other = option.dataset.outcome === "win" ? "loss" : "win";
    const radio = form.querySelector(`input[name="outcome"][value="${other}"]`);
    if (radio) radio.checked = true;
  }

  document.addEventListener("change", (event) => {
    if (event.target.matches("#dlg-correct select[name=game]")) preselectCorrection(event.target);
    const form = event.target.closest("form[data-needs-reason]");
    if (form) updateConfirm(form);
    if (event.target.closest("[data-status-filter]")) applyFilters();
  });

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (form.matches("form[data-needs-reason]")) {
      const reason = form.querySelector("[data-reason]");
      if (reason && !reason.value.trim()) {
        event.preventDefault();
        reason.focus();
        return;
      }
      const confirm = form.querySelector("[data-confirm]");
      if (confirm) {
        confirm.dataset.label = confirm.textContent;
        // Disabled after this tick, so the click still submits once and a double tap does not.
        setTimeout(() => {
          confirm.disabled = true;
          confirm.textContent = gettext("Saving…");
        }, 0);
      }
      return;
    }
    if (form.dataset.confirmText && form.dataset.confirmed !== "yes") {
      event.preventDefault();
      askToConfirm(form);
    }
  });

  // --- plain confirmations (start, finalize, close registration) -----------------------------

  function askToConfirm(form) {
    const dialog = document.getElementById("dlg-confirm");
    if (!dialog) {
      form.dataset.confirmed = "yes";
      form.requestSubmit();
      return;
    }
    dialog.querySelector("[data-confirm-message]").textContent = form.dataset.confirmText;
    const yes = dialog.querySelector("[data-confirm-yes]");
    yes.textContent = (form.querySelector("button[type=submit]") || yes).textContent.trim() || gettext("Confirm");
    dialog.returnValue = "";
    dialog.addEventListener(
      "close",
      () => {
        if (dialog.returnValue === "yes") {
          form.dataset.confirmed = "yes";
          form.requestSubmit();
        }
      },
      { once: true }
    );
    dialog.showModal();
  }

  document.addEventListener("click", (event) => {
    const opener = event.target.closest("button[data-dialog]");
    if (opener) {
      const menu = opener.closest("details.more");
      if (menu) menu.open = false;
      openDialog(opener);
      return;
    }
    const close = event.target.closest("[data-close]");
    if (close) {
      close.closest("dialog").close();
      return;
    }
    const add = event.target.closest("[data-add-adjustment]");
    if (add) {
      const rows = add.closest("fieldset").querySelector("[data-adjustments]");
      const template = document.getElementById("tpl-adjustment");
      if (rows && template) {
        rows.appendChild(template.content.cloneNode(true));
        const inputs = rows.querySelectorAll('input[name="amount"]');
        inputs[inputs.length - 1].focus();
      }
      return;
    }
    const message = event.target.closest(".messages .message");
    if (message) message.remove();
    // Close an open "More" menu when tapping elsewhere.
    document.querySelectorAll("details.more[open]").forEach((menu) => {
      if (!menu.contains(event.target)) menu.open = false;
    });
  });

  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      document.querySelectorAll("details.more[open]").forEach((menu) => {
        menu.open = false;
      });
    }
  });

  // --- filters: a search box and a status select over a table or list ------------------------

  function applyFilters() {
    const groups = new Map();
    document.querySelectorAll("[data-filter]").forEach((input) => {
      const selector = input.dataset.filter;
      groups.set(selector, Object.assign(groups.get(selector) || {}, { text: input.value }));
    });
    document.querySelectorAll("[data-status-filter]").forEach((select) => {
      const selector = select.dataset.statusFilter;
      groups.set(selector, Object.assign(groups.get(selector) || {}, { status: select.value }));
    });
    groups.forEach((filter, selector) => {
      const words = (filter.text || "").trim().toLowerCase().split(/\s+/).filter(Boolean);
      const status = filter.status || "";
      let shown = 0;
      const rows = Array.from(document.querySelectorAll(selector)).filter((row) =>
        row.hasAttribute("data-search")
      );
      rows.forEach((row) => {
        const name = row.dataset.search || "";
        const textOk = words.every((word) => name.includes(word));
        const statusOk =
          !status ||
          (status === "attention" ? row.dataset.attention === "1" : row.dataset.status === status);
        row.hidden = !(textOk && statusOk);
        if (!row.hidden) shown += 1;
      });
      const first = document.querySelector(selector);
      const section = first && first.closest("section, main");
      const empty = section && section.querySelector(".filter-empty");
      if (empty) empty.hidden = shown > 0 || rows.length === 0;
    });
  }

  // --- a table wider than its box shows that it scrolls (house.css) ---------------------------

  function markScrolling() {
    document.querySelectorAll(".table-wrap").forEach((wrap) => {
      wrap.toggleAttribute("data-scrolls", wrap.scrollWidth > wrap.clientWidth + 1);
    });
  }
  window.addEventListener("resize", markScrolling);

  // --- pending selections age while the page is open -----------------------------------------

  function waited(seconds) {
    if (seconds < 60) return interpolate(gettext("%(seconds)s s"), { seconds }, true);
    const minutes = Math.floor(seconds / 60);
    if (minutes < 60) {
      const words = { minutes, seconds: String(seconds % 60).padStart(2, "0") };
      return interpolate(gettext("%(minutes)s min %(seconds)s s"), words, true);
    }
    const words = { hours: Math.floor(minutes / 60), minutes: String(minutes % 60).padStart(2, "0") };
    return interpolate(gettext("%(hours)s h %(minutes)s min"), words, true);
  }

  function tick() {
    const now = Date.now();
    document.querySelectorAll(".age[data-since]").forEach((age) => {
      const since = Date.parse(age.dataset.since);
      if (Number.isNaN(since)) return;
      const seconds = Math.max(0, Math.floor((now - since) / 1000));
      age.textContent = waited(seconds);
      const cell = age.closest(".pending");
      if (cell) cell.classList.toggle("overdue", seconds > OVERDUE_SECONDS);
    });
  }

  // --- live refreshes wait while House is in a menu or a dialog -------------------------------
  // A refresh swapped in under an open dialog would pull out the form its Confirm submits (the
  // click would be lost); under an open menu it would close the menu. The refresh waits, and runs
  // once House is done.

  let refreshWaiting = false;

  function busy() {
    const container = live();
    return Boolean(
      (container && container.querySelector("details.more[open]")) ||
        document.querySelector("dialog[open]")
    );
  }

  let swapWaiting = false; // a pushed live part held back (live.js keeps it)

  document.addEventListener("live:beforeswap", (event) => {
    if (event.target !== live()) return;
    if (busy()) {
      event.preventDefault();
      swapWaiting = true;
    }
  });
  document.addEventListener("live:swapped", (event) => {
    if (event.target !== live()) return;
    applyFilters();
    tick();
    markScrolling();
  });

  function refreshIfWaiting() {
    if (swapWaiting && !busy() && live() && window.syndicateLive) {
      swapWaiting = false;
      window.syndicateLive.swapHeld(live());
    }
    if (refreshWaiting && !busy() && window.htmx && live()) {
      refreshWaiting = false;
      window.htmx.trigger(live(), "live-refresh");
    }
  }

  document.addEventListener("htmx:beforeRequest", (event) => {
    const container = live();
    if (!container || event.detail.elt !== container) return;
    if (busy()) {
      event.preventDefault();
      refreshWaiting = true;
    }
  });

  // A refresh already on its way when the dialog opened is held back too.
  document.addEventListener("htmx:beforeSwap", (event) => {
    const config = event.detail.requestConfig;
    if (!config || config.elt !== live() || config.verb !== "get") return;
    if (busy()) {
      event.detail.shouldSwap = false;
      refreshWaiting = true;
    }
  });

  document.addEventListener(
    "toggle",
    (event) => {
      const menu = event.target;
      if (menu.matches && menu.matches("details.more") && !menu.open) refreshIfWaiting();
    },
    true
  );
  // "close" does not bubble: listen in the capture phase, and let a confirmed form submit first.
  document.addEventListener("close", () => setTimeout(refreshIfWaiting, 0), true);

  // --- the toast: an answer that went well leaves by itself; a refusal stays until tapped ------

  const TOAST_SECONDS = 8;

  function timeMessages() {
    document.querySelectorAll(".messages .message:not(.error):not([data-timed])").forEach((message) => {
      message.dataset.timed = "1";
      setTimeout(() => message.remove(), TOAST_SECONDS * 1000);
    });
  }

  document.addEventListener("htmx:afterSwap", () => {
    applyFilters();
    tick();
    timeMessages();
    markScrolling();
  });
  document.addEventListener("htmx:oobAfterSwap", timeMessages);

  document.addEventListener("DOMContentLoaded", () => {
    applyFilters();
    tick();
    timeMessages();
    markScrolling();
  });
  if (document.readyState !== "loading") {
    applyFilters();
    tick();
    timeMessages();
    markScrolling();
  }
  setInterval(tick, 5000);
})();
