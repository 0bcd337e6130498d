// The change feed, the OAI-PMH provider and the TimeMaps are three views of one history: over a
// registry with a past (records created, changed, withdrawn, deleted, and a rollback), each names
// the same events at the same times, on both adapters.
import assert from 'node:assert/strict';
import { Parser, type Quad } from 'n3';
import request from 'supertest';
import type { Express } from 'express';
import type { History, HistoryEvent } from '../../../src/history/model';
import { httpDate } from '../../../src/history/model';
import { ADAPTERS, needsStore } from '../../support';
import {
  historyApp,
  parseLinkFormat,
  writeHistory,
  type HistoryFixture,
} from '../../support/history';
import { harvest, id, stamp } from '../../support/oaiApp';
import { needsXmllint } from '../../support/oaiSchema';

const AS = 'https://www.w3.org/ns/activitystreams#';
const TREE = 'https://w3id.org/tree#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const ORIGIN = 'http://story.test';
const ACTIVITY: Record<HistoryEvent['kind'], string> = {
  created: 'Create',
  updated: 'Update',
  withdrawn: 'Delete',
  deleted: 'Delete',
};
const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');

/** Every quad of the feed: the root, and every page it links. */
async function feedQuads(app: Express): Promise<Quad[]> {
  const get = async (path: string) => {
    const res = await request(app)
      .get(path)
      .set('Host', 'story.test')
      .set('Accept', 'application/trig')
      .expect(200);
    return new Parser({ format: 'application/trig', baseIRI: `${ORIGIN}${path}` }).parse(res.text);
  };
  const root = await get('/feed');
  const pages = root
    .filter((q) => q.predicate.value === `${TREE}node`)
    .map((q) => new URL(q.object.value).pathname);
  const quads = [...root];
  for (const page of new Set(pages)) quads.push(...(await get(page)));
  return quads;
}

for (const adapter of ADAPTERS)
  describe(`the feed, OAI-PMH and the TimeMaps tell one story (${adapter})`, function () {
    before(needsStore(adapter));
    this.timeout(300_000);
    let fixture: HistoryFixture;
    let app: Express;
    let history: History;
    let events: HistoryEvent[];

    before(async function () {
      needsXmllint.call(this);
      fixture = await writeHistory();
      let dataset;
      ({ app, dataset } = await historyApp(fixture, {}, adapter));
      history = dataset.history;
      events = [...history.all()];
    });

    it('holds every kind of event, and a rollback', () => {
      assert.equal(history.versions.length, 5);
      const kinds = new Set(events.map((e) => e.kind));
      assert.deepEqual([...kinds].sort(), ['created', 'deleted', 'updated', 'withdrawn']);
      // The rollback's version is the second's again, at a later time.
      assert.equal(history.versions[4]!.version, history.versions[1]!.version);
    });

    it('the feed has one member for each event, of its kind, at its time', async () => {
      const quads = await feedQuads(app);
      const by = (p: string) =>
        new Map(
          quads
            .filter((q) => q.predicate.value === p)
            .map((q) => [q.subject.value, q.object.value]),
        );
      const objects = by(`${AS}object`);
      const published = by(`${AS}published`);
      const types = by(RDF_TYPE);
      const members = [...objects.keys()].map(
        (activity) =>
          `${types.get(activity)!.replace(AS, '')} ${objects.get(activity)!.replace(/.*\/organisations\//, '')} ${published.get(activity)}`,
      );
      assert.deepEqual(
        members.sort(),
        events.map((e) => `${ACTIVITY[e.kind]} ${e.isil} ${iso(e.time)}`).sort(),
      );
    });

    it('OAI-PMH dates each ISIL at its latest event, deleted where that event removed it', async () => {
      const { headers } = await harvest(app, 'verb=ListIdentifiers&metadataPrefix=oai_dc');
      const latest = new Map<string, HistoryEvent>();
      for (const e of events) latest.set(e.isil, e);
      assert.deepEqual(
        headers.map((h) => `${h.identifier} ${h.datestamp} ${h.deleted}`).sort(),
        [...latest.values()]
          .map((e) => `${id(e.isil)} ${stamp(e.time)} ${e.kind === 'deleted'}`)
          .sort(),
      );
    });

    it("each TimeMap lists the ISIL's creations and updates at their times", async () => {
      const byIsil = new Map<string, HistoryEvent[]>();
      for (const e of events) byIsil.set(e.isil, [...(byIsil.get(e.isil) ?? []), e]);
      // Every ISIL with more than one event, and two with one.
      const chosen = [...byIsil].filter(([, list]) => list.length > 1);
      chosen.push(...[...byIsil].filter(([, list]) => list.length === 1).slice(0, 2));
      for (const [isil, list] of chosen) {
        const mementos = list.filter((e) => e.kind === 'created' || e.kind === 'updated');
        const res = await request(app).get(`/timemap/data/organisations/${isil}.ttl`);
        if (mementos.length === 0) {
          assert.equal(res.status, 404, isil);
          continue;
        }
        assert.equal(res.status, 200, isil);
        const listed = parseLinkFormat(res.text)
          .filter((l) => l.attributes.rel!.split(' ').includes('memento'))
          .map((l) => l.attributes.datetime);
        assert.deepEqual(
          listed,
          mementos.map((e) => httpDate(e.time)),
          isil,
        );
      }
    });
  });
