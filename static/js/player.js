// The player's event page: choosing cards, reporting games, and honest waiting states.
// Event delegation on document, so handlers survive the panel being swapped.
//
// A flaky venue connection must never strand a player:
//   - a form that was sent is done: the picks on it no longer hold back a newer panel, and they
//     cannot be changed while its answer is awaited;
//   - an answer that does not come (lost, a timeout, a server error) turns the action into a note
//     with "Check again", which fetches the saved state (never resends blindly);
//   - a tap made while offline is kept on the page and sent once the socket is live again, with
//     the form's own idempotency key, so it happens exactly once;
//   - a refusal is written next to the action by the server (web/_player.html, data-refusal) and
//     stays there a little while even if a pushed panel arrives right after it.
//
// Its words come from the page's language catalog ({% js_catalog %}: gettext, interpolate).
(function () {
  "use strict";

  var TIMEOUT = 12000; // ms before an unanswered confirmation offers "Check again"
  var REFUSAL_SHOWN = 15000; // ms a refusal stays next to the action across pushed panels
  var NOT_KEPT_MS = 3000; // the Not kept cards' whole stay (docs/rules.md section 4.3: about three seconds)

  if (window.htmx) {
    window.htmx.config.timeout = TIMEOUT;
  }

  var everLive = false; // the socket has been live once: actions work offline from then on
  var queued = null; // a tap made offline: {path, values, what}
  var replaying = false;
  var refusal = null; // {text, until}
  var checking = false; // a "Check again" fetch is on its way
  var deferred = false; // a refetch held back while the player is mid-choice
  var held = false; // a pushed panel held back (live.js keeps it)

  function panel() {
    return document.getElementById("player");
  }

  function step() {
    var root = panel();
    return root && root.querySelector(".next-step");
  }

  function inPanel(el) {
    var root = panel();
    return Boolean(root && el && root.contains(el));
  }

  // --- choosing starting cards ------------------------------------------------------------

  function updateStart(form) {
    var keep = parseInt(form.dataset.keep, 10);
    var chosen = form.querySelectorAll('.choice[aria-pressed="true"]');
    form.querySelector("[data-count]").textContent = String(chosen.length);
    form.querySelectorAll('input[name="slot"]').forEach(function (input) {
      input.remove();
    });
    chosen.forEach(function (button) {
      var input = document.createElement("input");
      input.type = "hidden";
      input.name = "slot";
      input.value = button.dataset.slot;
      form.appendChild(input);
    });
    var submit = form.querySelector('button[type="submit"]');
    if (!submit) {
      return; // the form was sent: its button is a note now
    }
    var exact = chosen.length === keep;
    submit.disabled = !exact;
    var left = keep - chosen.length;
    submit.textContent = exact
      ? submit.dataset.confirmLabel
      : interpolate(ngettext("Choose %(count)s more", "Choose %(count)s more", left), { count: left }, true);
  }

  document.addEventListener("click", function (event) {
    var choice = event.target.closest(".start-form .choice");
    if (choice) {
      var form = choice.closest(".start-form");
      if (form.hasAttribute("data-sent")) {
        return; // sent: the picks are what the server was asked for
      }
      var keep = parseInt(form.dataset.keep, 10);
      var pressed = choice.getAttribute("aria-pressed") === "true";
      var count = form.querySelectorAll('.choice[aria-pressed="true"]').length;
      if (pressed || count < keep) {
        choice.setAttribute("aria-pressed", pressed ? "false" : "true");
      }
      updateStart(form);
      return;
    }
    var report = event.target.closest("[data-report]");
    if (report) {
      var dialog = document.querySelector(".report-sheet");
      var outcome = report.dataset.report;
      dialog.querySelector('input[name="outcome"]').value = outcome;
      dialog.querySelector("[data-outcome-word]").textContent =
        outcome === "win" ? pgettext("you ... the game", "won") : pgettext("you ... the game", "lost");
      dialog.showModal();
      dialog.querySelector("#opponent").focus();
      return;
    }
    if (event.target.closest("[data-close]")) {
      event.target.closest("dialog").close();
      return;
    }
    var again = event.target.closest("[data-check-again]");
    if (again) {
      checkAgain(again);
      return;
    }
    var game = event.target.closest(".games .game");
    if (game) {
      showGame(game);
    }
  });

  // A game chip tapped shows its details (result, opponent, score) under the chips.
  function showGame(chip) {
    var details = document.getElementById("game-details");
    if (!details) {
      return;
    }
    var open = chip.getAttribute("aria-expanded") === "true";
    chip.closest(".games").querySelectorAll(".game").forEach(function (other) {
      other.setAttribute("aria-expanded", "false");
    });
    details.hidden = open;
    if (!open) {
      chip.setAttribute("aria-expanded", "true");
      details.textContent = chip.getAttribute("data-details");
    }
  }

  // A sent keep-form keeps its radio as sent.
  document.addEventListener(
    "click",
    function (event) {
      var label = event.target.closest(".keep-form[data-sent] .choice");
      if (label) {
        event.preventDefault();
      }
    },
    true
  );

  // Keyboard: the face-down cards are buttons already (Enter/Space toggle them).

  // --- notes next to the action -------------------------------------------------------------

  function note(words, withCheckAgain) {
    var where = step();
    if (!where) {
      return null;
    }
    var box = where.querySelector("[data-trouble]");
    if (!box) {
      box = document.createElement("div");
      box.className = "action-note";
      box.setAttribute("role", "alert");
      box.setAttribute("data-trouble", "");
      box.appendChild(document.createElement("p"));
      var anchor = where.querySelector("[data-refusal]") || where.querySelector(".what");
      anchor.after(box);
    }
    box.querySelector("p").textContent = words;
    var button = box.querySelector("[data-check-again]");
    if (withCheckAgain && !button) {
      button = document.createElement("button");
      button.type = "button";
      button.className = "primary big";
      button.setAttribute("data-check-again", "");
      button.textContent = gettext("Check again");
      box.appendChild(button);
    } else if (!withCheckAgain && button) {
      button.remove();
    }
    if (button) {
      button.disabled = false;
    }
    return box;
  }

  // The action was sent (or kept to send): it cannot be made again from this panel.
  function setAside(form) {
    if (!form) {
      return;
    }
    form.setAttribute("data-sent", "");
    var dialog = form.closest("dialog");
    if (dialog && dialog.open) {
      dialog.close();
    }
    var submit = form.querySelector('button[type="submit"]');
    if (submit) {
      submit.hidden = true;
    }
    var where = step();
    if (where) {
      where.querySelectorAll(".report-buttons").forEach(function (row) {
        row.hidden = true;
      });
    }
  }

  function checkAgain(button) {
    checking = true;
    button.disabled = true;
    button.textContent = gettext("Checking…");
    window.htmx.trigger(panel(), "live-refresh");
  }

  function checkFailed() {
    checking = false;
    var box = note(gettext("Still no answer from the server. Check again once you have signal."), true);
    var button = box && box.querySelector("[data-check-again]");
    if (button) {
      button.textContent = gettext("Check again");
    }
  }

  // --- sending, and what a lost answer turns into ------------------------------------------------

  function formOf(event) {
    var elt = event.detail && event.detail.elt;
    var form = elt && elt.closest ? elt.closest("form") : null;
    return inPanel(form) ? form : null;
  }

  function verbOf(event) {
    var config = event.detail && event.detail.requestConfig;
    return config && config.verb ? String(config.verb).toLowerCase() : "";
  }

  function offline() {
    var state = window.syndicateLive ? window.syndicateLive.state : "live";
    return navigator.onLine === false || (everLive && state !== "live");
  }

  // What a kept tap was, in the words of the buttons tapped: "Game 3: I won".
  function whatIsKept(form) {
    if (form.classList.contains("start-form")) {
      var chosen = form.querySelectorAll('input[name="slot"]').length;
      return interpolate(
        ngettext("Your starting cards (%(count)s chosen)", "Your starting cards (%(count)s chosen)", chosen),
        { count: chosen },
        true
      );
    }
    if (form.classList.contains("keep-form")) {
      var picked = form.querySelector('input[name="slot"]:checked');
      var card = picked && picked.closest(".choice").querySelector(".card[aria-label]");
      var words = { game: form.dataset.game, card: card ? card.getAttribute("aria-label") : "" };
      if (card) {
        return interpolate(
          form.dataset.game ? gettext("Game %(game)s: keep the %(card)s") : gettext("Keep the %(card)s"),
          words,
          true
        );
      }
      return form.dataset.game
        ? interpolate(gettext("Game %(game)s: keep the card you tapped"), words, true)
        : gettext("Keep the card you tapped");
    }
    var game = form.querySelector('input[name="game"]');
    var outcome = form.querySelector('input[name="outcome"]');
    if (!game) {
      return gettext("Your tap");
    }
    var said =
      outcome && outcome.value === "loss"
        ? gettext("Game %(game)s: I lost")
        : outcome && outcome.value === "win"
          ? gettext("Game %(game)s: I won")
          : gettext("Game %(game)s: result");
    return interpolate(said, { game: game.value }, true);
  }

  function keptNote() {
    note(interpolate(gettext("%(what)s — will be sent when you're back online."), { what: queued.what }, true), false);
  }

  function keepForLater(form) {
    queued = { path: form.getAttribute("hx-post"), values: new FormData(form), what: whatIsKept(form) };
    setAside(form);
    keptNote();
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = formOf(event);
    if (!form || verbOf(event) !== "post") {
      return;
    }
    refusal = null;
    held = false; // a panel held back from before this tap is older than its answer
    if (navigator.onLine === false) {
      event.preventDefault(); // not sent: kept, and sent with its key when the socket is back
      keepForLater(form);
      return;
    }
    form.setAttribute("data-sent", "");
    var submit = form.querySelector('button[type="submit"]');
    if (submit) {
      submit.dataset.label = submit.textContent;
      submit.textContent = gettext("Saving…");
    }
  });

  document.addEventListener("htmx:sendError", function (event) {
    if (replaying && verbOf(event) === "post" && !formOf(event)) {
      replaying = false; // still unreachable: the tap stays kept for the next live moment
      keptNote();
      return;
    }
    if (verbOf(event) === "get") {
      if (checking) {
        checkFailed();
      }
      return;
    }
    var form = formOf(event);
    if (!form) {
      return;
    }
    if (offline()) {
      keepForLater(form); // same form, same key: exactly once whether or not it had arrived
      return;
    }
    setAside(form);
    note(gettext("The answer was lost on the way. Your tap may have been saved."), true);
  });

  // No usable answer (a timeout, a 5xx): a "Check again" fetch that failed says so; a tap (or
  // the replay of a kept tap) is set aside with a note, and never sent again by itself.
  function unanswered(event, message) {
    if (verbOf(event) === "get") {
      if (checking) {
        checkFailed();
      }
      return;
    }
    var form = formOf(event);
    if (form || replaying) {
      replaying = false;
      queued = null;
      setAside(form);
      note(message, true);
    }
  }

  document.addEventListener("htmx:timeout", function (event) {
    unanswered(event, gettext("No answer from the server yet. Your tap may have been saved."));
  });

  document.addEventListener("htmx:responseError", function (event) {
    var status = event.detail && event.detail.xhr ? event.detail.xhr.status : 0;
    unanswered(
      event,
      interpolate(gettext("The server could not answer (error %(status)s). Your tap may have been saved."), { status: status }, true)
    );
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    if (replaying && !formOf(event) && event.detail && event.detail.successful) {
      replaying = false;
      queued = null;
    }
  });

  function replay() {
    if (!queued || replaying || navigator.onLine === false || !window.htmx) {
      return;
    }
    replaying = true;
    note(gettext("Back online: sending it now…"), false);
    window.htmx.ajax("POST", queued.path, {
      target: "#player",
      swap: "innerHTML",
      values: queued.values,
    });
  }

  // --- live: what the socket brings ----------------------------------------------------------

  // Once live, the page's actions stay usable offline (a tap is kept and sent later): undo
  // live.js's "needs the connection" on the panel's actions, now and in every new panel.
  function workOffline(scope) {
    if (!everLive || !scope || !scope.querySelectorAll) {
      return;
    }
    scope.querySelectorAll("[data-needs-connection]").forEach(function (el) {
      if (!inPanel(el)) {
        return;
      }
      el.removeAttribute("data-needs-connection");
      if (el.hasAttribute("data-live-disabled")) {
        el.removeAttribute("data-live-disabled");
        el.disabled = false;
      }
    });
  }

  // live.js shows its state on the connection dot; "live" means the server is reachable (and
  // after a reconnect, its snapshot is already swapped in): send a kept tap now.
  function onConnection() {
    var dot = document.querySelector(".conn");
    if (!dot || dot.getAttribute("data-state") !== "live") {
      return;
    }
    everLive = true;
    workOffline(panel());
    replay();
  }
  var dot = document.querySelector(".conn");
  if (dot && "MutationObserver" in window) {
    new MutationObserver(onConnection).observe(dot, {
      attributes: true,
      attributeFilter: ["data-state"],
    });
    onConnection();
  }

  // A live update must not undo what the player is in the middle of: an open report sheet, or
  // cards picked but not confirmed yet. Such an update keeps the page as it is, and the newest
  // panel is swapped in once the player is done (the sheet closed, or every pick undone). A form
  // that was sent is no longer in the middle of anything.

  function midChoice() {
    return Boolean(
      document.querySelector(".report-sheet[open] form:not([data-sent])") ||
        document.querySelector('.start-form:not([data-sent]) .choice[aria-pressed="true"]') ||
        document.querySelector(".keep-form:not([data-sent]) input:checked")
    );
  }

  function refreshIfDeferred() {
    if (midChoice()) {
      return;
    }
    if (held) {
      held = false;
      var root = panel();
      if (root && window.syndicateLive && window.syndicateLive.swapHeld) {
        window.syndicateLive.swapHeld(root);
      }
    }
    if (deferred) {
      deferred = false;
      window.htmx.trigger(panel(), "live-refresh");
    }
  }

  document.addEventListener("live:beforeswap", function (event) {
    if (event.target.id !== "player") {
      return;
    }
    if (midChoice()) {
      event.preventDefault();
      held = true;
      return;
    }
    held = false;
    var dialog = document.querySelector(".report-sheet[open]");
    if (dialog) {
      dialog.close();
    }
  });

  // The panel's own version (the player's stream version it was rendered at).
  function versionIn(html) {
    var found = /data-version="(\d+)"/.exec(html || "");
    return found ? Number(found[1]) : null;
  }

  function shownVersion() {
    var where = step();
    return where ? Number(where.getAttribute("data-version")) : null;
  }

  function showRefusal(text) {
    var where = step();
    if (!where || where.querySelector("[data-refusal]")) {
      return;
    }
    var p = document.createElement("p");
    p.className = "action-note error-box";
    p.setAttribute("role", "alert");
    p.setAttribute("data-refusal", "");
    p.textContent = text;
    where.querySelector(".what").after(p);
  }

  document.addEventListener("htmx:beforeSwap", function (event) {
    var config = event.detail.requestConfig;
    if (event.detail.target && event.detail.target.id === "player" && event.detail.shouldSwap) {
      // A pushed panel may have got here first (the socket is often faster than the answer):
      // an answer no newer than what is shown must not take away a choice begun on it.
      var answer = versionIn(event.detail.serverResponse);
      var shown = shownVersion();
      if (answer !== null && shown !== null && (answer < shown || (answer === shown && midChoice()))) {
        event.detail.shouldSwap = false;
        checking = false;
        var said = /data-refusal>([^<]*)</.exec(event.detail.serverResponse || "");
        if (said) {
          var words = document.createElement("textarea"); // decodes the escaped words only
          words.innerHTML = said[1];
          refusal = { text: words.value, until: Date.now() + REFUSAL_SHOWN };
          showRefusal(refusal.text);
        }
        return;
      }
    }
    if (config && config.verb === "get" && midChoice() && !checking) {
      event.detail.shouldSwap = false;
      deferred = true;
      return;
    }
    deferred = false; // what is swapped in now is the newest state
    var dialog = document.querySelector(".report-sheet[open]");
    if (dialog) {
      dialog.close();
    }
  });
  // "close" does not bubble: listen in the capture phase.
  document.addEventListener("close", refreshIfDeferred, true);
  document.addEventListener("click", function () {
    setTimeout(refreshIfDeferred, 0);
  });

  // --- after a new panel -------------------------------------------------------------------------

  function swapped(fromServerAnswer) {
    var root = panel();
    if (!root) {
      return;
    }
    checking = false;
    // Messages at the top of the page were about an earlier screen.
    document.querySelectorAll(".messages").forEach(function (box) {
      box.remove();
    });
    var shown = root.querySelector("[data-refusal]");
    if (shown) {
      refusal = { text: shown.textContent, until: Date.now() + REFUSAL_SHOWN };
    } else if (!fromServerAnswer && refusal && Date.now() < refusal.until) {
      showRefusal(refusal.text);
    }
    workOffline(root);
    notKeptLeave(root);
  }

  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.target && event.target.id === "player") {
      swapped(true);
    }
  });
  document.addEventListener("live:swapped", function (event) {
    if (event.target && event.target.id === "player") {
      swapped(false);
    }
  });
  document.addEventListener("htmx:load", function (event) {
    workOffline(event.target);
  });

  // "Not kept" cards leave three seconds after the confirmation: a timer, not the end of an
  // animation (reduced motion runs none), and the server says how long is left, so a refresh
  // or a reload neither restarts the fade nor brings them back.
  function notKeptLeave(scope) {
    scope.querySelectorAll(".not-kept[data-leaves-in]").forEach(function (card) {
      if (card.hasAttribute("data-leaving")) {
        return;
      }
      card.setAttribute("data-leaving", "");
      var left = Math.max(0, Number(card.getAttribute("data-leaves-in")) || 0);
      // The fade continues where it was, not from the start: its animation is moved on
      // (Web Animations), so the card never carries a style attribute for the CSP to refuse.
      var elapsed = NOT_KEPT_MS - Math.min(left, NOT_KEPT_MS);
      if (card.getAnimations) {
        card.getAnimations().forEach(function (animation) {
          animation.currentTime = elapsed;
        });
      }
      setTimeout(function () {
        card.remove();
      }, left);
    });
  }

  notKeptLeave(document);
})();
