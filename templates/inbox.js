// The inbox's script (served once, cached: PageAssets): keeps the list of open questions current without a reload.
// Every few seconds, while the tab is visible, it reads the same page of the list as JSON and brings the list in line:
// questions that left are removed, new ones added in their place (built from the page's <template>, texts set as
// text only), the others left as they are (a focused link keeps its focus). Changes are said in a polite live region.
// Without it the page reloads itself (<noscript> refresh); it never runs inline code.
/* global document, window, location -- a browser script */
(function () {
  var root = document.getElementById('inbox');
  var list = document.getElementById('inbox-list');
  var empty = document.getElementById('inbox-empty');
  var status = document.getElementById('inbox-status');
  var older = document.getElementById('inbox-older');
  var template = document.getElementById('inbox-item');
  if (!root || !list || !empty || !status || !older || !template || !window.fetch || !window.Intl) return;
  var EVERY_MS = 5000;
  var source = root.getAttribute('data-source');
  var home = root.getAttribute('data-home');
  var lang = document.documentElement.lang;
  // As the server writes times (PageTimes): the date and time in UTC, the time left in its largest unit.
  var absolute = new Intl.DateTimeFormat(lang, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  });
  var relative = Intl.RelativeTimeFormat ? new Intl.RelativeTimeFormat(lang, { numeric: 'auto' }) : null;
  var timer = null;
  var busy = false;
  var stopped = false;

  function timeLeft(iso) {
    var left = Math.max(Date.parse(iso) - Date.now(), 0);
    if (left >= 3600000) return relative.format(Math.round(left / 3600000), 'hour');
    if (left >= 60000) return relative.format(Math.ceil(left / 60000), 'minute');
    return relative.format(Math.ceil(left / 1000), 'second');
  }

  // Only a link of this site's own kind: an http(s) URL.
  function safeUrl(url) {
    try {
      var parsed = new URL(url, location.href);
      return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
    } catch {
      return null;
    }
  }

  function setFact(node, name, value) {
    var fact = node.querySelector('[data-fact=' + name + ']');
    if (value) fact.querySelector('bdi').textContent = value;
    else fact.parentNode.removeChild(fact);
  }

  // One question as the page renders it (templates/inbox.hbs), from its JSON.
  function itemOf(question) {
    var node = template.content.firstElementChild.cloneNode(true);
    var id = String(question.elicitationId);
    node.setAttribute('data-id', id);
    var message = node.querySelector('.message');
    message.id = 'q-' + id;
    message.textContent = question.message;
    setFact(node, 'tool', question.askedBy && question.askedBy.tool);
    setFact(node, 'client', question.askedBy && question.askedBy.client);
    var asked = node.querySelector('[data-at=asked]');
    asked.setAttribute('datetime', question.createdAt);
    asked.textContent = absolute.format(Date.parse(question.createdAt));
    node.querySelector('[data-at=expires]').setAttribute('datetime', question.expiresAt);
    node.querySelector('[data-at=expires-absolute]').textContent = '(' + absolute.format(Date.parse(question.expiresAt)) + ')';
    var link = node.querySelector('a.answer');
    link.textContent = link.getAttribute(question.kind === 'approval' ? 'data-follow' : 'data-answer');
    var url = safeUrl(question.url);
    if (url) link.setAttribute('href', url);
    link.setAttribute('aria-describedby', message.id);
    return node;
  }

  function announce(text) {
    // Emptied first, so that the same sentence twice is said twice.
    status.textContent = '';
    setTimeout(function () {
      status.textContent = text;
    }, 100);
  }

  function render(page) {
    var wanted = {};
    page.questions.forEach(function (question) {
      wanted[String(question.elicitationId)] = true;
    });
    var shown = {};
    var removed = 0;
    var added = 0;
    var lostFocus = false;
    Array.prototype.slice.call(list.children).forEach(function (node) {
      var id = node.getAttribute('data-id');
      if (wanted[id]) {
        shown[id] = node;
        return;
      }
      lostFocus = lostFocus || node.contains(document.activeElement);
      list.removeChild(node);
      removed++;
    });
    page.questions.forEach(function (question, index) {
      var node = shown[String(question.elicitationId)];
      if (!node) {
        node = itemOf(question);
        added++;
      }
      if (list.children[index] !== node) list.insertBefore(node, list.children[index] || null);
    });
    Array.prototype.forEach.call(list.querySelectorAll('time[data-at=expires]'), function (time) {
      if (relative) time.textContent = timeLeft(time.getAttribute('datetime'));
    });
    list.hidden = page.questions.length === 0;
    empty.hidden = page.questions.length !== 0;
    older.hidden = typeof page.next !== 'string';
    if (typeof page.next === 'string') older.setAttribute('href', home + '?after=' + encodeURIComponent(page.next));
    if (lostFocus) {
      // The focused question left: focus goes to the first one left, or to the heading.
      var next = list.querySelector('a.answer') || document.querySelector('main h1');
      if (next.tagName === 'H1') next.setAttribute('tabindex', '-1');
      next.focus();
    }
    var said = [];
    if (added) said.push(root.getAttribute('data-arrived'));
    if (removed) said.push(root.getAttribute('data-left'));
    if (said.length) announce(said.join(' '));
  }

  function schedule() {
    if (!stopped && timer === null && !document.hidden) timer = setTimeout(poll, EVERY_MS);
  }

  function poll() {
    timer = null;
    if (document.hidden || busy) return;
    busy = true;
    fetch(source, { headers: { Accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' })
      .then(function (res) {
        // Signed out, or no inbox any more: the list stays as it was, and the page stops asking.
        if (res.status === 401 || res.status === 403 || res.status === 404) stopped = true;
        return res.ok ? res.json() : null;
      })
      .then(function (page) {
        if (page && Array.isArray(page.questions)) render(page);
      })
      .catch(function () {
        // Offline or a failed answer: the next poll tries again.
      })
      .then(function () {
        busy = false;
        schedule();
      });
  }

  // Paused while the tab is hidden; read at once when it shows again.
  document.addEventListener('visibilitychange', function () {
    if (document.hidden) {
      clearTimeout(timer);
      timer = null;
    } else if (!busy && !stopped) {
      clearTimeout(timer);
      poll();
    }
  });
  schedule();
})();
