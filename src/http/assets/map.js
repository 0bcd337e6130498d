// The map of an institution's page: Leaflet, from this host, with tiles from the URL the
// page names (MAP_TILES); the page shows the coordinates as text too, so without tiles, scripts or
// Leaflet nothing is lost. MAP_ATTRIBUTION is text: Leaflet writes an attribution as HTML, so it
// gets the text's markup escaped, and `<img onerror=…>` in the setting shows as written.
(function () {
  'use strict';
  function asText(text) {
    var holder = document.createElement('span');
    holder.textContent = text;
    return holder.innerHTML;
  }
  var el = document.getElementById('map');
  if (!el || typeof L === 'undefined') return;
  var lat = Number(el.getAttribute('data-lat'));
  var lon = Number(el.getAttribute('data-lon'));
  if (!isFinite(lat) || !isFinite(lon)) return;
  L.Icon.Default.imagePath = '/assets/leaflet/images/';
  var map = L.map(el, { scrollWheelZoom: false }).setView([lat, lon], 15);
  var tiles = el.getAttribute('data-tiles');
  if (tiles)
    L.tileLayer(tiles, {
      maxZoom: 19,
      attribution: asText(el.getAttribute('data-attribution') || ''),
    }).addTo(map);
  L.marker([lat, lon], {
    title: el.getAttribute('data-name') || '',
    alt: el.getAttribute('data-name') || '',
  }).addTo(map);
})();
