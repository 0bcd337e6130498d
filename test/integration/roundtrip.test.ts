// The real DE-1a document, loaded as it is, comes back as the same graph in every RDF format,
// read by parsers other than the ones that wrote it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import request from 'supertest';
import type { Express } from 'express';
import { DataFactory, type Quad } from 'n3';
import { JsonLdParser } from 'jsonld-streaming-parser';
import {
  BASE,
  PUBLIC,
  buildApp,
  DE_1A,
  DE_1A_RDF,
  distinct,
  parseRdfXml,
  parseTurtle,
  sameGraph,
  streamQuads,
  asText,
  needsThirdParty,
} from '../support';

const XSD_DATETIME = 'http://www.w3.org/2001/XMLSchema#dateTime';

/**
 * The one difference between the document as published and as stored: Oxigraph keeps xsd:dateTime
 * by value, so `"2021-12-15T13:55:44.000"` comes back in its canonical lexical form
 * `"2021-12-15T13:55:44"` (XML Schema 1.1 Part 2, §3.3.7.2: no trailing zero fraction). Same value;
 * every other term is compared exactly.
 */
function canonicalDateTimes(quads: readonly Quad[]): Quad[] {
  return quads.map((q) =>
    q.object.termType === 'Literal' && q.object.datatype.value === XSD_DATETIME
      ? DataFactory.quad(
          q.subject,
          q.predicate,
          DataFactory.literal(q.object.value.replace(/\.0+(?=$|[Z+-])/, ''), q.object.datatype),
        )
      : q,
  );
}

async function parseJsonLd(text: string, app: Express): Promise<Quad[]> {
  const contexts: string[] = [];
  const parser = new JsonLdParser({
    baseIRI: `${BASE}/`,
    documentLoader: {
      // The context is read from the service itself, as a client would dereference it.
      load: async (url: string) => {
        contexts.push(url);
        assert.equal(url, `${PUBLIC}/context.jsonld`);
        const res = await request(app).get('/context.jsonld');
        assert.equal(res.status, 200);
        return JSON.parse(res.text);
      },
    },
  });
  const quads = await streamQuads(parser, text);
  assert.equal(contexts.length, 1, 'the context is fetched once');
  return quads;
}

describe('DE-1a round trip', () => {
  before(needsThirdParty);
  let app: Express;
  let expected: Quad[];
  const bodies = new Map<string, string>();

  before(async () => {
    app = (await buildApp()).app;
    expected = canonicalDateTimes(await parseRdfXml(fs.readFileSync(DE_1A_RDF, 'utf8')));
    for (const ext of ['rdf', 'ttl', 'jsonld', 'nt']) {
      const res = await request(app)
        .get(`/data/organisations/DE-1a.${ext}`)
        .set('Accept-Encoding', 'identity')
        .buffer(true)
        .parse(asText);
      bodies.set(ext, res.body as string);
    }
  });

  it('the real document holds 63 distinct triples (66 written, 3 repeated rdf:value)', () => {
    assert.equal(distinct(expected).length, 63);
  });

  it('RDF/XML, read by rdfxml-streaming-parser, is the stored graph', async () => {
    assert.ok(sameGraph(await parseRdfXml(bodies.get('rdf')!), expected));
  });

  it('Turtle, read by N3.js, is the stored graph', () => {
    assert.ok(sameGraph(parseTurtle(bodies.get('ttl')!), expected));
  });

  it('N-Triples, read by N3.js in N-Triples mode, is the stored graph', () => {
    assert.ok(sameGraph(parseTurtle(bodies.get('nt')!, 'application/n-triples'), expected));
  });

  it('JSON-LD, read by jsonld-streaming-parser with the served context, is the stored graph', async () => {
    assert.ok(sameGraph(await parseJsonLd(bodies.get('jsonld')!, app), expected));
  });

  it('the comparison can fail: one changed literal is a different graph', () => {
    const i = expected.findIndex((q) => q.object.termType === 'Literal');
    const altered = [...expected];
    altered[i] = DataFactory.quad(
      expected[i]!.subject,
      expected[i]!.predicate,
      DataFactory.literal('changed'),
    );
    assert.ok(!sameGraph(altered, expected));
  });

  it('Turtle uses readable prefixes', () => {
    const ttl = bodies.get('ttl')!;
    for (const prefix of ['foaf', 'v', 'dcterms', 'wdrs', 'geo'])
      assert.match(ttl, new RegExp(`^@prefix ${prefix}: <`, 'm'));
    assert.match(ttl, /a foaf:Organization/);
  });

  it('RDF/XML declares the model prefixes and uses them', () => {
    const xml = bodies.get('rdf')!;
    assert.match(xml, /xmlns:foaf="http:\/\/xmlns\.com\/foaf\/0\.1\/"/);
    assert.match(xml, /<foaf:name>/);
  });

  describe('JSON-LD', () => {
    let doc: Record<string, unknown>;
    before(() => {
      doc = JSON.parse(bodies.get('jsonld')!);
    });
    it('names the served context by URL, on the origin asked (PUBLIC_URL)', () =>
      assert.equal(doc['@context'], `${PUBLIC}/context.jsonld`));
    it('is framed: the institution is the top object', () => assert.equal(doc['@id'], DE_1A));
    it('is compacted: short terms from the context', () => {
      assert.equal(
        doc.name,
        'Staatsbibliothek zu Berlin - Preußischer Kulturbesitz, Haus Potsdamer Straße',
      );
      assert.ok(Array.isArray(doc.adr));
    });
    it('the context is served with CORS and the JSON-LD media type', async () => {
      const res = await request(app).get('/context.jsonld');
      assert.equal(res.headers['content-type'], 'application/ld+json');
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.ok(JSON.parse(res.text)['@context'].foaf);
    });
  });
});
