// The map of an institution's page (issue 18): Leaflet, from this host, with tiles from the URL the
// page names (MAP_TILES); the page shows the coordinates as text too, so without tiles, scripts or
// Leaflet nothing is lost.
(function () {
  'use strict';
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
      attribution: el.getAttribute('data-attribution') || '',
    }).addTo(map);
  L.marker([lat, lon], {
    title: el.getAttribute('data-name') || '',
    alt: el.getAttribute('data-name') || '',
  }).addTo(map);
})();
