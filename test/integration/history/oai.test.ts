// The OAI-PMH provider (/oai, docs/history.md "Harvesting by OAI-PMH") over a registry with a
// past: five versions (created, updated, deleted, withdrawn, a rollback) written by the loader's
// commit step. Every answer is validated against the OAI-PMH schemas with xmllint (--nonet), each
// verb and each error. Over the embedded store: test/system/history/oneStory.test.ts holds that
// the remote store's history tells the harvester the same.
import assert from 'node:assert/strict';
import request from 'supertest';
import type { Express } from 'express';
import { historyApp, VERSION_TIMES, type HistoryFixture } from '../../support/history';
import { EMBEDDED, needsThirdParty, parseRdfXml, sameGraph } from '../../support';
import { needsXmllint } from '../../support/oaiSchema';
import type { OaiAnswer } from '../../support/oaiXml';
import { ask, harvest, id, iri, ODD, oaiFixture, REPOSITORY, stamp } from '../../support/oaiApp';
import { RECORDS_PER_PAGE } from '../../../src/oai/listVerbs';

for (const adapter of EMBEDDED)
  describe(`OAI-PMH provider (/oai, ${adapter})`, function () {
    this.timeout(180_000);
    let fixture: HistoryFixture;
    let app: Express;
    let base: string[];
    let extra: string;
    /** The ISILs served at the end, and the one deleted. */
    let live: string[];
    let deleted: string;

    before(async function () {
      needsThirdParty.call(this);
      needsXmllint.call(this);
      ({ fixture, base, extra, live, deleted } = await oaiFixture());
      ({ app } = await historyApp(fixture, {}, adapter));
    });

    describe('Identify', () => {
      let answer: OaiAnswer;
      before(async () => (answer = await ask(app, 'verb=Identify')));
      it('names the base URL, on the origin asked', () =>
        assert.match(answer.text.get('baseURL')![0]!, /^http:\/\/127\.0\.0\.1:\d+\/oai$/));
      it('states protocol version 2.0', () =>
        assert.deepEqual(answer.text.get('protocolVersion'), ['2.0']));
      it('dates the earliest record at the first version', () =>
        assert.deepEqual(answer.text.get('earliestDatestamp'), [stamp(VERSION_TIMES[0]!)]));
      it('keeps deleted records persistently', () =>
        assert.deepEqual(answer.text.get('deletedRecord'), ['persistent']));
      it('answers in seconds', () =>
        assert.deepEqual(answer.text.get('granularity'), ['YYYY-MM-DDThh:mm:ssZ']));
      it('gives the default admin address', () =>
        assert.deepEqual(answer.text.get('adminEmail'), [`webmaster@${REPOSITORY}`]));
      it('describes its identifiers (oai-identifier)', () =>
        assert.deepEqual(answer.text.get('repositoryIdentifier'), [REPOSITORY]));
      it('names the request with its verb', () =>
        assert.deepEqual(answer.request, { verb: 'Identify' }));
    });

    it('Identify gives OAI_ADMIN_EMAIL', async () => {
      const other = await historyApp(fixture, { OAI_ADMIN_EMAIL: 'isil@example.org' }, adapter);
      const answer = await ask(other.app, 'verb=Identify');
      assert.deepEqual(answer.text.get('adminEmail'), ['isil@example.org']);
    });

    describe('ListMetadataFormats', () => {
      it('lists oai_dc, rdf and rdf-full', async () => {
        const answer = await ask(app, 'verb=ListMetadataFormats');
        assert.deepEqual(answer.text.get('metadataPrefix'), ['oai_dc', 'rdf', 'rdf-full']);
      });
      it('lists all for an institution RDF/XML can carry', async () => {
        const answer = await ask(app, `verb=ListMetadataFormats&identifier=${id(base[1]!)}`);
        assert.deepEqual(answer.text.get('metadataPrefix'), ['oai_dc', 'rdf', 'rdf-full']);
      });
      it('omits rdf for one it cannot (whose .rdf answers 406)', async () => {
        const answer = await ask(app, `verb=ListMetadataFormats&identifier=${id(ODD)}`);
        assert.deepEqual(answer.text.get('metadataPrefix'), ['oai_dc']);
        const rdf = await request(app).get(`/data/organisations/${ODD}.rdf`);
        assert.equal(rdf.status, 406);
      });
      it('idDoesNotExist for an unknown identifier', async () => {
        const answer = await ask(app, `verb=ListMetadataFormats&identifier=${id('DE-Nope')}`);
        assert.deepEqual(
          answer.errors.map((e) => e.code),
          ['idDoesNotExist'],
        );
      });
    });

    describe('ListSets', () => {
      it('lists the country and type sets', async () => {
        const answer = await ask(app, 'verb=ListSets');
        assert.deepEqual(answer.text.get('setSpec'), [
          'country:DE',
          'country:ZDB',
          'type:library',
          'type:archive',
          'type:museum',
          'type:other',
          'type:unknown',
        ]);
      });
      it('badResumptionToken for any token', async () => {
        const answer = await ask(app, 'verb=ListSets&resumptionToken=x');
        assert.deepEqual(
          answer.errors.map((e) => e.code),
          ['badResumptionToken'],
        );
      });
    });

    describe('GetRecord', () => {
      it('oai_dc: name, ISIL and URI, date; datestamp of the last change', async () => {
        const answer = await ask(
          app,
          `verb=GetRecord&metadataPrefix=oai_dc&identifier=${id(base[1]!)}`,
        );
        assert.deepEqual(
          answer.headers.map((h) => [h.identifier, h.datestamp]),
          [[id(base[1]!), stamp(VERSION_TIMES[0]!)]],
        );
        assert.deepEqual(answer.text.get('identifier')!.slice(1), [base[1]!, iri(base[1]!)]);
        assert.match(answer.text.get('title')![0]!, /\(synthetisch\)$/);
        assert.equal(answer.text.get('date')!.length, 1);
      });
      it('a record changed back by the rollback is dated at the rollback', async () => {
        const answer = await ask(
          app,
          `verb=GetRecord&metadataPrefix=oai_dc&identifier=${id(base[0]!)}`,
        );
        assert.equal(answer.headers[0]!.datestamp, stamp(VERSION_TIMES[4]!));
      });
      it('rdf: the same graph as the institution’s .rdf document', async () => {
        const answer = await ask(
          app,
          `verb=GetRecord&metadataPrefix=rdf&identifier=${id(base[1]!)}`,
        );
        const document = await request(app).get(`/data/organisations/${base[1]!}.rdf`);
        assert.ok(
          sameGraph(await parseRdfXml(answer.metadata[0]!), await parseRdfXml(document.text)),
        );
      });
      it('a deleted ISIL: its header, status deleted, dated at the deletion, no metadata', async () => {
        const answer = await ask(
          app,
          `verb=GetRecord&metadataPrefix=oai_dc&identifier=${id(deleted)}`,
        );
        assert.deepEqual(answer.headers, [
          {
            identifier: id(deleted),
            datestamp: stamp(VERSION_TIMES[1]!),
            setSpecs: ['country:DE'],
            deleted: true,
          },
        ]);
        assert.deepEqual(answer.metadata, [undefined]);
      });
      it('cannotDisseminateFormat for rdf of one RDF/XML cannot carry', async () => {
        const answer = await ask(app, `verb=GetRecord&metadataPrefix=rdf&identifier=${id(ODD)}`);
        assert.deepEqual(
          answer.errors.map((e) => e.code),
          ['cannotDisseminateFormat'],
        );
      });
      it('oai_dc of that one', async () => {
        const answer = await ask(app, `verb=GetRecord&metadataPrefix=oai_dc&identifier=${id(ODD)}`);
        assert.deepEqual(answer.text.get('title'), ['Sonderbibliothek (synthetisch)']);
      });
      it('cannotDisseminateFormat for a format the repository has not', async () => {
        const answer = await ask(
          app,
          `verb=GetRecord&metadataPrefix=marc21&identifier=${id(base[1]!)}`,
        );
        assert.deepEqual(
          answer.errors.map((e) => e.code),
          ['cannotDisseminateFormat'],
        );
      });
      it('idDoesNotExist for another repository’s identifier', async () => {
        const answer = await ask(
          app,
          `verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:example.org:${base[1]!}`,
        );
        assert.deepEqual(
          answer.errors.map((e) => e.code),
          ['idDoesNotExist'],
        );
      });
    });

    describe('ListIdentifiers and ListRecords, whole', () => {
      let identifiers: Awaited<ReturnType<typeof harvest>>;
      let records: Awaited<ReturnType<typeof harvest>>;
      before(async () => {
        identifiers = await harvest(app, 'verb=ListIdentifiers&metadataPrefix=oai_dc');
        records = await harvest(app, 'verb=ListRecords&metadataPrefix=oai_dc');
      });
      it('every ISIL once: the live ones and the deleted one', () => {
        const expected = [...live, deleted].map(id).sort();
        assert.deepEqual(identifiers.headers.map((h) => h.identifier).sort(), expected);
        assert.deepEqual(records.headers.map((h) => h.identifier).sort(), expected);
      });
      it('the deleted one alone has status deleted and no metadata', () => {
        assert.deepEqual(
          records.headers.filter((h) => h.deleted).map((h) => h.identifier),
          [id(deleted)],
        );
        assert.deepEqual(
          records.headers.flatMap((h, i) =>
            records.metadata[i] === undefined ? [h.identifier] : [],
          ),
          [id(deleted)],
        );
      });
      it('in order of datestamp', () => {
        const stamps = records.headers.map((h) => h.datestamp);
        assert.deepEqual(stamps, [...stamps].sort());
      });
      it('pages of RECORDS_PER_PAGE records with completeListSize and cursor', () => {
        const size = String(live.length + 1);
        assert.equal(records.pages.length, Math.ceil((live.length + 1) / RECORDS_PER_PAGE));
        records.pages.forEach((page, i) => {
          assert.equal(page.token?.attributes.completeListSize, size);
          assert.equal(page.token?.attributes.cursor, String(i * RECORDS_PER_PAGE));
        });
        assert.equal(records.pages.at(-1)!.token!.value, '', 'the last part has an empty token');
      });
      it('a token states when it expires', () => {
        assert.match(
          records.pages[0]!.token!.attributes.expirationDate!,
          /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
        );
      });
      it('ListIdentifiers fits in one answer: no token', () => {
        assert.equal(identifiers.pages.length, 1);
        assert.equal(identifiers.pages[0]!.token, undefined);
      });
      it('headers name their sets', () => {
        for (const h of identifiers.headers) {
          assert.ok(
            h.setSpecs.includes(`country:${h.identifier.slice(id('').length).split('-')[0]!}`),
          );
          if (!h.deleted) assert.equal(h.setSpecs.filter((s) => s.startsWith('type:')).length, 1);
        }
      });
    });

    describe('selective harvesting', () => {
      const listed = async (query: string) =>
        (await harvest(app, `verb=ListIdentifiers&metadataPrefix=oai_dc&${query}`)).headers
          .map((h) => h.identifier)
          .sort();
      it('from the rollback: exactly the records it changed', async () =>
        assert.deepEqual(
          await listed(`from=${stamp(VERSION_TIMES[4]!)}`),
          [base[0]!, base[2]!, base[6]!].map(id).sort(),
        ));
      it('from the second version: those, the one created and the one deleted since', async () =>
        assert.deepEqual(
          await listed(`from=${stamp(VERSION_TIMES[1]!)}`),
          [base[0]!, base[2]!, base[4]!, base[6]!, extra].map(id).sort(),
        ));
      it('from and until inclusive, to the second', async () =>
        assert.deepEqual(
          await listed(`from=${stamp(VERSION_TIMES[1]!)}&until=${stamp(VERSION_TIMES[1]!)}`),
          [base[4]!, extra].map(id).sort(),
        ));
      it('until a day: that whole day', async () =>
        assert.equal((await listed('until=2025-03-01')).length, live.length - 4));
      it('from a day: from its first second', async () =>
        assert.equal((await listed('from=2025-03-05')).length, 3));
      it('a type set: headers of that kind only', async () => {
        const answer = await ask(
          app,
          'verb=ListIdentifiers&metadataPrefix=oai_dc&set=type:library',
        );
        assert.ok(answer.headers.length > 0);
        for (const h of answer.headers)
          assert.ok(h.setSpecs.includes('type:library'), h.identifier);
      });
      it('the type sets share out the live records', async () => {
        let total = 0;
        for (const type of ['library', 'archive', 'museum', 'other', 'unknown'])
          total += (
            await harvest(app, `verb=ListIdentifiers&metadataPrefix=oai_dc&set=type:${type}`)
          ).headers.length;
        assert.equal(total, live.length);
      });
      it('a country set', async () =>
        assert.deepEqual(
          await listed('set=country:ZDB'),
          [...live, deleted]
            .filter((i) => i.startsWith('ZDB-'))
            .map(id)
            .sort(),
        ));
      for (const query of [
        'set=country:FR',
        'set=type:castle',
        'set=nothing',
        `from=2030-01-01T00:00:00Z`,
      ])
        it(`noRecordsMatch: ${query}`, async () => {
          const answer = await ask(app, `verb=ListRecords&metadataPrefix=oai_dc&${query}`);
          assert.deepEqual(
            answer.errors.map((e) => e.code),
            ['noRecordsMatch'],
          );
        });
    });
  });
