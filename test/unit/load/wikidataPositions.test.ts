// The positions source's reader (src/load/read/wikidata.ts): one point per Wikidata item, the
// query's date from the file's name, features without an item or a point skipped, a file that is
// no FeatureCollection refused.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { LoadError } from '../../../src/load/loadError';
import { readPositions } from '../../../src/load/read/wikidata';
import { tempDir } from '../../support';

const feature = (item: unknown, coordinates: unknown, type = 'Point') => ({
  type: 'Feature',
  properties: { item, itemLabel: 'Museum' },
  geometry: { type, coordinates },
});

function file(name: string, body: unknown): string {
  const at = path.join(tempDir(), name);
  fs.writeFileSync(at, JSON.stringify(body));
  return at;
}

describe('readPositions', () => {
  const records = [
    ...readPositions(
      file('museums_2020-10.geojson', {
        type: 'FeatureCollection',
        features: [
          feature('http://www.wikidata.org/entity/Q157298', [13.396, 52.521]),
          feature('http://www.wikidata.org/entity/Q157298', [13.4, 52.6]),
          feature('http://example.org/Q1', [13.396, 52.521]),
          feature('http://www.wikidata.org/entity/Q2', [200, 52.521]),
          feature('http://www.wikidata.org/entity/Q3', [[1, 2]], 'LineString'),
        ],
      }),
    ),
  ];

  it('gives an item its first point, with the month of the file name', () =>
    assert.deepEqual(
      records.filter((r) => 'item' in r),
      [
        {
          kind: 'positions',
          item: 'http://www.wikidata.org/entity/Q157298',
          lat: 52.521,
          lon: 13.396,
          modified: new Date(Date.UTC(2020, 9, 1)),
          origin: records[0]!.origin,
        },
      ],
    ));
  it('skips a feature without a Wikidata item or a WGS 84 point, saying which', () =>
    assert.deepEqual(
      records.filter((r) => 'reason' in r).map((r) => 'reason' in r && r.reason),
      [
        'the feature has no Wikidata item',
        'the feature has no WGS 84 point',
        'the feature has no WGS 84 point',
      ],
    ));
  it('refuses a file that is no FeatureCollection', () =>
    assert.throws(
      () => [...readPositions(file('x.geojson', { type: 'Feature' }))],
      (e: Error) => e instanceof LoadError && /FeatureCollection/.test(e.message),
    ));
  it('refuses a file that is no JSON', () => {
    const at = path.join(tempDir(), 'y.geojson');
    fs.writeFileSync(at, '{"type": "FeatureCollection", ');
    assert.throws(
      () => [...readPositions(at)],
      (e: Error) => e instanceof LoadError && /not GeoJSON/.test(e.message),
    );
  });
});
