// Memento over the change log the loader writes (not a history built in memory): TimeMaps list the
// versions that changed each institution at their times, mementos serve what was served then, and
// an ISIL deleted in a later version answers 410 with its past.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import zlib from 'node:zlib';
import request from 'supertest';
import type { Express } from 'express';
import { httpDate, timestamp14 } from '../../../src/history/model';
import { generate } from '../../../src/generate/generated';
import {
  HISTORY_BASE,
  historyApp,
  isilOf,
  parseLinkFormat,
  registryVersions,
  writeHistory,
  type HistoryFixture,
} from '../../support/history';
import { ADAPTERS, rawRequest, needsStore } from '../../support';

for (const adapter of ADAPTERS)
  describe(`Memento over the history the loader writes (${adapter})`, function () {
    before(needsStore(adapter));
    this.timeout(120_000);
    let fixture: HistoryFixture;
    let app: Express;
    const versions = registryVersions();
    before(async () => {
      fixture = await writeHistory(versions);
      ({ app } = await historyApp(fixture, {}, adapter));
    });
    after(() => fs.rmSync(fixture.dir, { recursive: true, force: true }));

    it('lists one memento for each version that changed an institution, at its time', async () => {
      // The third institution: created in 1, renamed in 2 and 4, renamed back by the rollback in 5.
      const renamed =
        /organisations\/(DE-[^>]+)> <http:\/\/xmlns.com\/foaf\/0.1\/name> "[^"]*\(umbenannt\)"/.exec(
          versions[1]!,
        )![1]!;
      const res = await request(app)
        .get(`/timemap/data/organisations/${renamed}.ttl`)
        .expect(200)
        .expect('Content-Type', /application\/link-format/);
      const mementos = parseLinkFormat(res.text).filter((l) =>
        l.attributes.rel!.split(' ').includes('memento'),
      );
      assert.deepEqual(
        mementos.map((m) => m.attributes.datetime),
        [0, 1, 3, 4].map((i) => httpDate(fixture.committed[i]!.time!)),
      );
      const then = await request(app)
        .get(
          `/memento/${timestamp14(fixture.committed[1]!.time!)}/data/organisations/${renamed}.nt`,
        )
        .expect(200);
      assert.match(then.text, /\(umbenannt\)"/);
      assert.equal(then.headers['memento-datetime'], httpDate(fixture.committed[1]!.time!));
      const first = await request(app)
        .get(`/timegate/data/organisations/${renamed}.nt`)
        .set('Accept-Datetime', httpDate(fixture.committed[0]!.time! + 3600))
        .expect(302);
      assert.equal(
        first.headers.location?.replace(/^https?:\/\/[^/]+/, ''),
        `/memento/${timestamp14(fixture.committed[0]!.time!)}/data/organisations/${renamed}.nt`,
      );
    });

    it('compresses an uncached memento in each coding asked at once: its bytes, its own ETag', async () => {
      const isil = isilOf(versions[0]!);
      const path = `/memento/${timestamp14(fixture.committed[0]!.time!)}/data/organisations/${isil}.ttl`;
      const [br, gzip, plain] = await Promise.all([
        rawRequest(app, path, { 'Accept-Encoding': 'br' }),
        rawRequest(app, path, { 'Accept-Encoding': 'gzip' }),
        rawRequest(app, path, { 'Accept-Encoding': 'identity' }),
      ]);
      for (const [coded, encoding, decode] of [
        [br, 'br', zlib.brotliDecompressSync],
        [gzip, 'gzip', zlib.gunzipSync],
      ] as const) {
        assert.equal(coded.status, 200, encoding);
        assert.equal(coded.headers['content-encoding'], encoding);
        assert.equal(Number(coded.headers['content-length']), coded.body.length);
        assert.deepEqual(decode(coded.body), plain.body, encoding);
        assert.equal(
          coded.headers.etag,
          `${plain.headers.etag!.slice(0, -1)}-${encoding === 'br' ? 'br' : 'gz'}"`,
        );
      }
      assert.match(plain.body.toString('utf8'), new RegExp(isil));
    });
    it('answers 410 with the TimeMap for an ISIL a later version deleted', async () => {
      // The fifth generated institution, deleted in the second version.
      const deleted = isilOf([...generate({ count: 41, seed: 11, base: HISTORY_BASE })][4]!);
      const res = await request(app).get(`/data/organisations/${deleted}.ttl`);
      assert.equal(res.status, 410);
      assert.match(res.headers.link ?? '', /rel="timemap"/);
    });
  });
