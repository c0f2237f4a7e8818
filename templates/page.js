// The script of every page (served once, cached: PageAssets): the focus on an error summary, the countdown.
/* global document, window -- a browser script */
(function () {
  // After a refused post, focus goes to the summary of what to correct (it links to each field).
  var summary = document.getElementById('error-summary');
  if (summary) summary.focus();
  // The countdown: the page works without it; it only keeps "expires in ..." current and warns a minute before.
  var line = document.getElementById('expiry');
  if (!line || !window.Intl || !Intl.RelativeTimeFormat) return;
  var end = Date.parse(line.getAttribute('data-expires-at'));
  var time = line.querySelector('time');
  var soon = document.getElementById('expiry-soon');
  var format = new Intl.RelativeTimeFormat(document.documentElement.lang, { numeric: 'auto' });
  var warned = false;
  function tick() {
    var left = end - Date.now();
    if (left <= 0) {
      soon.textContent = line.getAttribute('data-expired');
      return;
    }
    time.textContent =
      left >= 3600000
        ? format.format(Math.round(left / 3600000), 'hour')
        : left >= 60000
          ? format.format(Math.ceil(left / 60000), 'minute')
          : format.format(Math.ceil(left / 1000), 'second');
    if (left <= 60000 && !warned) {
      warned = true;
      soon.textContent = line.getAttribute('data-soon');
    }
    setTimeout(tick, left > 120000 ? 15000 : 1000);
  }
  tick();
})();
