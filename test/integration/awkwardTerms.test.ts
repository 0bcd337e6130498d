// Data the loader accepts but a format may not carry: every document the service answers is the
// stored graph, and the one it cannot write (RDF/XML of a control character, or of a predicate
// that ends in no XML name) gets a defined 406 that lists the documents it can.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import type { Quad } from 'n3';
import { createApp } from '../../src/http/app';
import { createLogger } from '../../src/util/logger';
import {
  buildApp,
  FIXTURES,
  parseJsonLd,
  parseRdfXml,
  parseTurtle,
  sameGraph,
  needsThirdParty,
} from '../support';

const parsers: Record<string, (text: string) => Quad[] | Promise<Quad[]>> = {
  ttl: (text) => parseTurtle(text),
  nt: (text) => parseTurtle(text, 'application/n-triples'),
  rdf: (text) => parseRdfXml(text),
  jsonld: (text) => parseJsonLd(text),
};

/** The institutions of fixtures/test/awkward-terms.ttl, and the formats that can carry each. */
const CASES: [isil: string, formats: string[]][] = [
  ['DE-Awk1', ['ttl', 'nt', 'jsonld']],
  ['DE-Awk2', ['ttl', 'nt', 'jsonld']],
  ['DE-Awk3', ['ttl', 'nt', 'jsonld', 'rdf']],
];

const FIXTURE = path.join(FIXTURES, 'test', 'awkward-terms.ttl');

describe('data some formats cannot carry', () => {
  before(needsThirdParty);
  let app: Express;
  /** The fixture's triples, as read by N3.js: what each document must be. */
  let loaded: Quad[];
  const logged: Record<string, unknown>[] = [];
  before(async () => {
    loaded = parseTurtle(fs.readFileSync(FIXTURE, 'utf8'));
    const built = await buildApp([FIXTURE]);
    const logger = createLogger('info', {
      write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>),
    });
    app = createApp({ service: built.service, logger });
  });

  for (const [isil, formats] of CASES) {
    describe(isil, () => {
      /** The institution's triples and its description document's, as the fixture has them. */
      const expected = () =>
        loaded.filter((q) => q.subject.value.endsWith(`/organisations/${isil}`));

      for (const format of formats)
        it(`.${format} is the graph loaded`, async () => {
          const res = await request(app).get(`/data/organisations/${isil}.${format}`).expect(200);
          assert.ok(expected().length >= 6);
          assert.ok(sameGraph(await parsers[format]!(res.text), expected()));
        });

      if (!formats.includes('rdf'))
        it('.rdf answers 406, says why and lists the documents that can be had', async () => {
          const ask = () =>
            request(app)
              .get(`/data/organisations/${isil}.rdf`)
              .set('Accept', 'application/rdf+xml');
          const res = await ask();
          assert.equal(res.status, 406);
          // Asked again: the same answer, from what the first found, and no second warning.
          const again = await ask();
          assert.equal(again.status, 406);
          assert.equal(again.text, res.text);
          assert.match(res.text, /^This description cannot be written as RDF\/XML: /);
          for (const ext of ['ttl', 'jsonld', 'nt', 'html'])
            assert.ok(res.text.includes(`/data/organisations/${isil}.${ext}`), ext);
          assert.ok(!res.text.includes(`${isil}.rdf`));
          assert.equal(res.headers['access-control-allow-origin'], '*');
          // The operator is told which data made it, as a warning, once.
          const warned = logged.filter(
            (l) => l.level === 40 && l.url === `/data/organisations/${isil}.rdf`,
          );
          assert.equal(warned.length, 1);
          assert.match(String(warned[0]!.msg), /cannot be written as RDF\/XML/);
        });
    });
  }

  it('the page shows a character HTML cannot hold as U+FFFD; its embedded JSON-LD keeps it', async () => {
    const res = await request(app).get('/isil/DE-Awk1').expect(200);
    assert.ok(res.text.includes('<p lang="de">a bell \uFFFD rings</p>'));
    assert.ok(!res.text.includes('\u0007'));
    const script = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(res.text)![1]!;
    assert.equal(JSON.parse(script).description, 'a bell \u0007 rings');
  });

  it('the empty string beside another value is in the JSON-LD', async () => {
    const res = await request(app).get('/data/organisations/DE-Awk3.jsonld').expect(200);
    assert.deepEqual(JSON.parse(res.text).description, ['', 'not empty']);
  });
});
