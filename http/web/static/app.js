// Progressive helpers of the account area: copy a new key, filter the model list.
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
  var q = document.getElementById('model-search');
  if (q) {
    q.addEventListener('input', function () {
      var v = q.value.toLowerCase();
      document.querySelectorAll('#models tbody tr').forEach(function (tr) {
        tr.hidden = v !== '' && tr.textContent.toLowerCase().indexOf(v) < 0;
      });
    });
  }
});

// The web chat: streams a reply from /account/chat (the API's own SSE), shows its cost, keeps the history per account.
document.addEventListener('DOMContentLoaded', function () {
  var box = document.getElementById('chat');
  if (!box) { return; }
  var list = document.getElementById('conversation');
  var form = document.getElementById('chat-form');
  var input = document.getElementById('chat-message');
  var model = document.getElementById('chat-model');
  var store = 'shz-chat-' + box.getAttribute('data-account');
  var history = [];
  try { history = JSON.parse(localStorage.getItem(store) || '[]'); } catch (e) { history = []; }

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
    var body = document.createElement('div');
    body.className = 'text';
    body.innerHTML = markdown(text);
    li.appendChild(body);
    list.appendChild(li);
    return li;
  }
  history.forEach(function (m) { add(m.role, m.content); });

  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    var text = input.value.trim();
    if (!text) { return; }
    input.value = '';
    history.push({role: 'user', content: text});
    add('user', text);
    var li = add('assistant', '');
    var body = li.querySelector('.text');
    var reply = '';
    fetch('/account/chat', {
      method: 'POST', credentials: 'same-origin',
      headers: {'Content-Type': 'application/json', 'X-CSRF-Token': box.getAttribute('data-csrf')},
      body: JSON.stringify({model: model.value, messages: history})
    }).then(function (resp) {
      if (!resp.ok) {
        return resp.json().then(function (e) { throw new Error(e.error ? e.error.message : resp.statusText); });
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
            if (chunk.error) { throw new Error(chunk.error.message); }
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
              cost.textContent = box.getAttribute('data-cost') + ': ' + chunk.usage.credits + ' ' + box.getAttribute('data-credits') + ' (' + (chunk.usage.credits / 100000) + ' ₽)';
              li.appendChild(cost);
            }
          });
          return pump();
        });
      }
      return pump();
    }).then(function () {
      body.innerHTML = markdown(reply);
      history.push({role: 'assistant', content: reply});
      localStorage.setItem(store, JSON.stringify(history.slice(-50)));
    }).catch(function (e) {
      history.pop();
      var err = document.createElement('p');
      err.setAttribute('role', 'alert');
      err.className = 'error';
      err.textContent = e.message;
      li.appendChild(err);
    });
  });
});
