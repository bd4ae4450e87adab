// Every page: register the service worker so the app can be installed and receive Poker push.
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js?lang=" + encodeURIComponent(document.documentElement.lang || "en"), { scope: "/" }).catch(() => {});
}
