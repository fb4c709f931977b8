// Progressive helpers of the account area: copy a new key, apply the model filters.
document.addEventListener('DOMContentLoaded', function () {
  document.querySelectorAll('[data-copy]').forEach(function (btn) {
    btn.addEventListener('click', function () {
      var src = document.getElementById(btn.getAttribute('data-copy'));
      var done = function () { btn.textContent = btn.getAttribute('data-copied'); };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(src.value).then(done, function () { src.select(); document.execCommand('copy'); done(); });
      } else { src.select(); document.execCommand('copy'); done(); }
    });
  });
  // The landing's filters apply as soon as one is chosen (the form works without script too).
  ['modality', 'provider'].forEach(function (id) {
    var sel = document.getElementById(id);
    if (sel && sel.form && sel.form.id === 'model-filters') { sel.addEventListener('change', function () { sel.form.requestSubmit(); }); }
  });
});

// The web chat: streams a reply from /account/chat (the API's own SSE), shows its cost, and keeps each
// exchange on the server (/account/chat/conversations), so the history follows the account to any browser.
document.addEventListener('DOMContentLoaded', function () {
  var box = document.getElementById('chat');
  if (!box || !document.getElementById('chat-form')) { return; }
  var list = document.getElementById('conversation');
  var form = document.getElementById('chat-form');
  var input = document.getElementById('chat-message');
  var model = document.getElementById('chat-model');
  var csrf = box.getAttribute('data-csrf');
  var convId = box.getAttribute('data-conversation');
  var turns = [];
  var stop = document.getElementById('chat-stop');
  var lang = box.getAttribute('data-lang');
  var controller = null;
  var errors = JSON.parse(box.getAttribute('data-errors') || '{}');
  // failure is an API error in the page's language: a known code's words, the server's own message
  // when it is already in the page's language, else a general line with the code.
  function failure(err, status) {
    if (!err) { return new Error(errors[''].replace('%s', String(status))); }
    if (errors[err.code]) { return new Error(errors[err.code]); }
    if (lang === 'en' || /[А-Яа-яЁё]/.test(err.message || '')) { return new Error(err.message); }
    return new Error(errors[''].replace('%s', err.code || String(status)));
  }
  // The picker remembers the last model chosen (when the gateway still serves it), unless a conversation is open.
  try {
    var last = window.localStorage.getItem('shlyuz.chat.model');
    if (!convId && last && Array.prototype.some.call(model.options, function (o) { return o.value === last; })) { model.value = last; }
  } catch (e) { /* storage off */ }
  model.addEventListener('change', function () { try { window.localStorage.setItem('shlyuz.chat.model', model.value); } catch (e) { /* storage off */ } });
  // Enter sends, Shift+Enter breaks the line.
  input.addEventListener('keydown', function (ev) {
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) { ev.preventDefault(); form.requestSubmit(); }
  });
  stop.addEventListener('click', function () { if (controller) { controller.abort(); } });
  // rubles writes credits as rubles to the kopeck in the page's language (1 ₽ = 100 000 credits).
  function rubles(credits) {
    if (credits > 0 && credits < 500) { return (lang === 'en' ? '<0.01' : '<0,01') + '\u00a0₽'; }
    return new Intl.NumberFormat(lang === 'en' ? 'en-US' : 'ru-RU', {minimumFractionDigits: 2, maximumFractionDigits: 2}).format(credits / 100000) + '\u00a0₽';
  }
  function grouped(n) { return new Intl.NumberFormat(lang === 'en' ? 'en-US' : 'ru-RU').format(n); }

  // api calls a conversation route; a refusal becomes an Error with the server's message.
  function api(method, path, body) {
    var headers = {'X-CSRF-Token': csrf};
    if (body) { headers['Content-Type'] = 'application/json'; }
    return fetch(path, {method: method, credentials: 'same-origin', headers: headers, body: body ? JSON.stringify(body) : undefined})
      .then(function (resp) {
        return resp.json().catch(function () { return {}; }).then(function (v) {
          if (!resp.ok) { throw new Error(v.error ? v.error.message : resp.statusText); }
          return v;
        });
      });
  }
  function alertIn(el, text) {
    var err = document.createElement('p');
    err.setAttribute('role', 'alert');
    err.className = 'error';
    err.textContent = text;
    el.appendChild(err);
  }
  // listed puts a newly kept conversation first in the list of conversations, marked as the open one.
  function listed(c) {
    var ul = document.getElementById('conversations');
    ul.querySelectorAll('.empty').forEach(function (e) { e.remove(); });
    ul.querySelectorAll('[aria-current]').forEach(function (e) { e.removeAttribute('aria-current'); });
    var li = document.createElement('li');
    li.setAttribute('data-conversation', c.id);
    var a = document.createElement('a');
    a.href = '/account/chat?c=' + encodeURIComponent(c.id);
    a.textContent = c.title || c.id;
    a.setAttribute('aria-current', 'page');
    var f = document.createElement('form');
    f.method = 'post';
    f.action = '/account/chat/conversations/' + encodeURIComponent(c.id) + '/delete';
    var h = document.createElement('input');
    h.type = 'hidden'; h.name = 'csrf'; h.value = csrf;
    var b = document.createElement('button');
    b.type = 'submit';
    b.textContent = box.getAttribute('data-delete');
    b.setAttribute('aria-label', box.getAttribute('data-delete-conv').replace('%s', c.title || c.id));
    f.appendChild(h); f.appendChild(b);
    li.appendChild(a); li.appendChild(f);
    ul.insertBefore(li, ul.firstChild);
  }
  // keep saves the conversation after an exchange: the first one creates it.
  function keep() {
    var body = {model: model.value, messages: turns};
    if (convId) { return api('PUT', '/account/chat/conversations/' + encodeURIComponent(convId), body); }
    return api('POST', '/account/chat/conversations', body).then(function (c) {
      convId = c.id;
      box.setAttribute('data-conversation', c.id);
      window.history.replaceState(null, '', '/account/chat?c=' + encodeURIComponent(c.id));
      listed(c);
    });
  }

  function esc(s) { return s.replace(/[&<>"']/g, function (c) { return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c]; }); }
  // markdown renders a safe subset: the text is escaped first, so only the tags made here exist —
  // fenced and inline code, headings, lists, bold, italics, and http(s) links.
  function inline(s) {
    return s.replace(/`([^`]+)`/g, '<code>$1</code>')
      .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>').replace(/\*([^*\s][^*]*)\*/g, '<em>$1</em>')
      .replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, '<a href="$2" rel="noopener noreferrer" target="_blank">$1</a>');
  }
  function markdown(s) {
    return esc(s).split('```').map(function (part, i) {
      if (i % 2 === 1) { return '<pre><code>' + part.replace(/^[^\n]*\n/, '') + '</code></pre>'; }
      var out = [], list = false;
      part.split('\n').forEach(function (line) {
        var item = /^\s*[-*] (.*)$/.exec(line), head = /^(#{1,3}) (.*)$/.exec(line);
        if (item && !list) { out.push('<ul>'); list = true; }
        if (!item && list) { out.push('</ul>'); list = false; }
        if (item) { out.push('<li>' + inline(item[1]) + '</li>'); } else if (head) {
          out.push('<h' + (head[1].length + 2) + '>' + inline(head[2]) + '</h' + (head[1].length + 2) + '>');
        } else { out.push(inline(line) + '<br>'); }
      });
      if (list) { out.push('</ul>'); }
      return out.join('');
    }).join('');
  }
  function add(role, text) {
    var li = document.createElement('li');
    li.className = 'msg ' + role;
    var who = document.createElement('span');
    who.className = 'skip';
    who.textContent = box.getAttribute(role === 'user' ? 'data-you' : 'data-assistant') + ': ';
    li.appendChild(who);
    var body = document.createElement('div');
    body.className = 'text';
    body.innerHTML = markdown(text);
    li.appendChild(body);
    list.appendChild(li);
    return li;
  }
  var ready = Promise.resolve();
  if (convId) {
    ready = api('GET', '/account/chat/conversations/' + encodeURIComponent(convId)).then(function (c) {
      turns = c.messages || [];
      turns.forEach(function (m) { add(m.role, m.content); });
    }).catch(function (e) { alertIn(list, e.message); });
  }

  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    var text = input.value.trim();
    if (!text) { return; }
    input.value = '';
    ready.then(function () { send(text); });
  });
  function send(text) {
    turns.push({role: 'user', content: text});
    add('user', text);
    var li = add('assistant', '');
    var body = li.querySelector('.text');
    var reply = '';
    controller = new AbortController();
    stop.hidden = false;
    fetch('/account/chat', {
      method: 'POST', credentials: 'same-origin', signal: controller.signal,
      headers: {'Content-Type': 'application/json', 'X-CSRF-Token': csrf},
      body: JSON.stringify({model: model.value, messages: turns.filter(function (m) { return m.content; })})
    }).then(function (resp) {
      if (!resp.ok) {
        return resp.json().catch(function () { return {}; }).then(function (e) { throw failure(e.error, resp.status); });
      }
      var reader = resp.body.getReader();
      var dec = new TextDecoder();
      var buf = '';
      function pump() {
        return reader.read().then(function (r) {
          if (r.done) { return; }
          buf += dec.decode(r.value, {stream: true});
          var parts = buf.split('\n\n');
          buf = parts.pop();
          parts.forEach(function (p) {
            if (p.indexOf('data: ') !== 0) { return; }
            var data = p.slice(6);
            if (data === '[DONE]') { return; }
            var chunk = JSON.parse(data);
            if (chunk.error) { throw failure(chunk.error, 0); }
            if (chunk.choices && chunk.choices[0] && chunk.choices[0].delta && chunk.choices[0].delta.content) {
              reply += chunk.choices[0].delta.content;
              body.textContent = reply;
            }
            var delta = chunk.choices && chunk.choices[0] && chunk.choices[0].delta;
            (delta && delta.images || []).forEach(function (im) {
              var url = im.image_url && im.image_url.url;
              if (url && url.indexOf('data:image/') === 0) {
                var img = document.createElement('img');
                img.src = url;
                img.alt = 'image';
                img.style.maxWidth = '100%';
                li.appendChild(img);
              }
            });
            if (chunk.usage && chunk.usage.credits !== undefined) {
              var cost = document.createElement('p');
              cost.className = 'cost';
              cost.setAttribute('data-generation', chunk.id);
              cost.setAttribute('data-credits', String(chunk.usage.credits));
              cost.textContent = box.getAttribute('data-cost') + ': ' + rubles(chunk.usage.credits) + ' (' + grouped(chunk.usage.credits) + ' ' + box.getAttribute('data-credits') + ')';
              li.appendChild(cost);
            }
          });
          return pump();
        });
      }
      return pump();
    }).then(function () {
      controller = null; stop.hidden = true;
      body.innerHTML = markdown(reply);
      turns.push({role: 'assistant', content: reply});
      return keep().catch(function (e) { alertIn(li, box.getAttribute('data-not-saved') + ': ' + e.message); });
    }, function (e) {
      controller = null; stop.hidden = true;
      if (e.name === 'AbortError' && reply) {
        body.innerHTML = markdown(reply);
        turns.push({role: 'assistant', content: reply});
        alertIn(li, box.getAttribute('data-stopped'));
        return keep().catch(function (e2) { alertIn(li, box.getAttribute('data-not-saved') + ': ' + e2.message); });
      }
      turns.pop();
      alertIn(li, e.name === 'AbortError' ? box.getAttribute('data-stopped') : e.message);
    });
  }
});
