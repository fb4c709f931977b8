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
