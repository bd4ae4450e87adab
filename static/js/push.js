// Poker push setting: ask the browser's permission, subscribe with the VAPID key, store the
// subscription per device; turning it off unsubscribes and removes it. Its words come from the
// page's language catalog ({% js_catalog %}: gettext, interpolate).
(function () {
  "use strict";
  const box = document.querySelector("[data-poker-push]");
  if (!box) return;
  const toggle = box.querySelector("[data-push-toggle]");
  const status = box.querySelector("[data-push-status]");
  const csrf = document.querySelector("input[name=csrfmiddlewaretoken]").value;

  function say(text) { status.textContent = text; }
  function supported() {
    return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
  }
  function keyBytes(base64) {
    const padded = (base64 + "===".slice((base64.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  }
  async function post(url, body) {
    const response = await fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error((await response.json()).error.message);
  }
  async function registration() {
    return navigator.serviceWorker.register("/sw.js?lang=" + encodeURIComponent(document.documentElement.lang || "en"), { scope: "/" });
  }

  async function turnOn() {
    const permission = await Notification.requestPermission();
    if (permission !== "granted") {
      toggle.checked = false;
      say(gettext("Notifications are blocked for this site. Allow them in your browser's site settings, then try again."));
      return;
    }
    const reg = await registration();
    const { public_key: key } = await (await fetch("/push/key")).json();
    const subscription = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
    await post("/push/subscribe", subscription.toJSON());
    say(gettext("Poker push is on for this device. You get one reminder when a card choice waits more than three minutes."));
  }

  async function turnOff() {
    const reg = await navigator.serviceWorker.getRegistration("/");
    const subscription = reg && (await reg.pushManager.getSubscription());
    if (subscription) {
      await post("/push/unsubscribe", { endpoint: subscription.endpoint });
      await subscription.unsubscribe();
    }
    say(gettext("Poker push is off for this device."));
  }

  async function init() {
    if (!supported()) {
      toggle.disabled = true;
      say(gettext("This browser cannot receive web push. On iPhone, add this app to your Home Screen first (see below), then open it from there."));
      return;
    }
    if (Notification.permission === "denied") {
      toggle.disabled = true;
      say(gettext("Notifications are blocked for this site. Allow them in your browser's site settings to use Poker push."));
      return;
    }
    const reg = await registration();
    const subscription = await reg.pushManager.getSubscription();
    toggle.checked = Boolean(subscription);
    say(subscription ? gettext("Poker push is on for this device.") : gettext("Poker push is off for this device."));
  }

  toggle.addEventListener("change", () => {
    toggle.disabled = true;
    (toggle.checked ? turnOn() : turnOff())
      .catch((error) => { toggle.checked = !toggle.checked; say(interpolate(gettext("That did not work: %(reason)s"), { reason: error.message }, true)); })
      .finally(() => { toggle.disabled = false; });
  });
  init().catch((error) => say(interpolate(gettext("Poker push is unavailable: %(reason)s"), { reason: error.message }, true)));
})();
