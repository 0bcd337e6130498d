// Autocomplete for the lookup box: asks /search/suggest as the reader types, shows up to
// ten institutions in a listbox (arrow keys, Enter, Escape, or a click), and opens the one chosen.
// Without scripts the box is a plain search form.
(function () {
  'use strict';
  Array.prototype.forEach.call(document.querySelectorAll('input[data-suggest]'), attach);
})();

function attach(input) {
  'use strict';
  var list = document.getElementById(input.getAttribute('aria-controls'));
  var lang = document.documentElement.lang;
  var explicit = new URLSearchParams(location.search).has('lang');
  var items = [];
  var active = -1;
  var timer = 0;
  var asked = 0;
  function close() {
    list.hidden = true;
    list.innerHTML = '';
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    items = [];
    active = -1;
  }
  function go(item) {
    location.href = item.page + (explicit ? '?lang=' + lang : '');
  }
  function mark(i) {
    active = i;
    Array.prototype.forEach.call(list.children, function (li, k) {
      li.setAttribute('aria-selected', String(k === i));
    });
    if (i >= 0) input.setAttribute('aria-activedescendant', list.id + '-' + i);
  }
  function show(found) {
    close();
    items = found;
    if (!found.length) return;
    found.forEach(function (item, i) {
      var li = document.createElement('li');
      li.id = list.id + '-' + i;
      li.setAttribute('role', 'option');
      li.setAttribute('aria-selected', 'false');
      li.textContent = item.name + ' ';
      var small = document.createElement('small');
      small.textContent = item.isil + (item.city ? ' · ' + item.city : '');
      li.appendChild(small);
      li.addEventListener('mousedown', function (e) {
        e.preventDefault();
        go(item);
      });
      list.appendChild(li);
    });
    list.hidden = false;
    input.setAttribute('aria-expanded', 'true');
  }
  input.addEventListener('input', function () {
    clearTimeout(timer);
    var q = input.value.trim();
    if (q.length < 2) return close();
    timer = setTimeout(function () {
      var mine = ++asked;
      fetch(input.getAttribute('data-suggest') + '?q=' + encodeURIComponent(q), {
        headers: { Accept: 'application/json' },
      })
        .then(function (res) {
          return res.ok ? res.json() : { suggestions: [] };
        })
        .then(function (body) {
          if (mine === asked) show(body.suggestions || []);
        })
        .catch(function () {});
    }, 120);
  });
  input.addEventListener('keydown', function (e) {
    if (!items.length) return;
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      mark((active + 1) % items.length);
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      mark((active - 1 + items.length) % items.length);
    } else if (e.key === 'Enter' && active >= 0) {
      e.preventDefault();
      go(items[active]);
    } else if (e.key === 'Escape') {
      close();
    }
  });
  input.addEventListener('blur', function () {
    setTimeout(close, 150);
  });
}
