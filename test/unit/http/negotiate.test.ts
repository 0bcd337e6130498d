// Content negotiation from a table of real and hostile `Accept` headers (HTTP contract §2, RFC 9110 §12.5.1).
import assert from 'node:assert/strict';
import type { FormatName } from '../../../src/rdf/formats';
import { negotiate } from '../../../src/http/negotiate';

/** The header Comunica sends for RDF documents: longer than a browser's 128-byte preflight limit. */
const COMUNICA =
  'application/n-quads,application/trig;q=0.95,application/ld+json;q=0.9,application/n-triples;q=0.8,' +
  'text/turtle;q=0.6,application/rdf+xml;q=0.5,text/n3;q=0.35,application/xml;q=0.3,image/svg+xml;q=0.3,' +
  'text/xml;q=0.3,text/html;q=0.2,application/xhtml+xml;q=0.18,application/json;q=0.135,text/shaclc;q=0.1,' +
  'text/shaclc-ext;q=0.05';

/** rdflib.js's Fetcher: its registered handlers joined in registration order. */
const RDFLIB_JS =
  'image/*;q=0.9, */*;q=0.1, application/rdf+xml;q=0.9, application/xhtml+xml, text/xml;q=0.5, ' +
  'application/xml;q=0.5, text/html;q=0.9, text/plain;q=0.5, text/n3;q=1.0, text/turtle;q=1';

/** Apache Jena's `WebContent.defaultGraphAcceptHeader`. */
const JENA =
  'text/turtle,application/n-triples;q=0.9,application/ld+json;q=0.8,application/rdf+xml;q=0.7,*/*;q=0.3';

const FIREFOX = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const CHROME =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,' +
  'application/signed-exchange;v=b3;q=0.7';
const SAFARI = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** [what the row shows, the Accept header (undefined: none sent), the expected format or undefined for 406]. */
const ROWS: [string, string | undefined, FormatName | undefined][] = [
  // The seed's two requests (HTTP contract §7).
  ['seed: text/html', 'text/html', 'html'],
  ['seed: application/rdf+xml', 'application/rdf+xml', 'rdf'],
  // Each format's own media type and every alias of §2.
  ['text/turtle', 'text/turtle', 'ttl'],
  ['application/ld+json', 'application/ld+json', 'jsonld'],
  ['application/n-triples', 'application/n-triples', 'nt'],
  ['alias application/xhtml+xml', 'application/xhtml+xml', 'html'],
  ['alias application/xml', 'application/xml', 'rdf'],
  ['alias text/xml', 'text/xml', 'rdf'],
  ['alias application/x-turtle', 'application/x-turtle', 'ttl'],
  ['alias application/json', 'application/json', 'jsonld'],
  ['alias text/plain', 'text/plain', 'nt'],
  // The types of the same bytes: Turtle as N3 and TriG, N-Triples as N-Quads.
  ['text/n3', 'text/n3', 'n3'],
  ['application/trig', 'application/trig', 'trig'],
  ['application/n-quads', 'application/n-quads', 'nq'],
  ['tie: text/n3, text/turtle goes to Turtle', 'text/n3, text/turtle', 'ttl'],
  [
    'tie: application/n-quads, application/n-triples',
    'application/n-quads, application/n-triples',
    'nt',
  ],
  ['TriG preferred over Turtle', 'application/trig, text/turtle;q=0.9', 'trig'],
  // Parameters other than q do not stop a match.
  ['charset parameter', 'text/turtle;charset=utf-8', 'ttl'],
  [
    'JSON-LD profile parameter',
    'application/ld+json;profile="http://www.w3.org/ns/json-ld#compacted"',
    'jsonld',
  ],
  ['parameter and q', 'application/n-triples;charset=utf-8;q=0.9, text/turtle;q=0.8', 'nt'],
  // q-values.
  ['higher q wins over order', 'text/html;q=0.5, text/turtle', 'ttl'],
  ['q with three decimals', 'application/rdf+xml;q=0.001, application/ld+json;q=0.002', 'jsonld'],
  ['q=0 excludes, */* gives the next by server order', 'text/html;q=0, */*', 'rdf'],
  [
    'q=0 on the own type excludes even when an alias is acceptable',
    'application/rdf+xml;q=0, application/xml',
    undefined,
  ],
  [
    'q=0 on an alias does not exclude the own type',
    'application/xml;q=0, application/rdf+xml',
    'rdf',
  ],
  ['q=0 alone: nothing acceptable', 'text/html;q=0', undefined],
  ['*/*;q=0: nothing acceptable', '*/*;q=0', undefined],
  ['a repeated range is not a veto', 'text/turtle;q=0, text/turtle;q=0.5', 'ttl'],
  // Wildcards and a missing header.
  ['*/*', '*/*', 'html'],
  ['text/*', 'text/*', 'html'],
  ['application/*: RDF/XML by server order', 'application/*', 'rdf'],
  ['text/* without text/html: Turtle is the text type offered', 'text/*, text/html;q=0', 'ttl'],
  ['no header', undefined, 'html'],
  ['empty header', '', 'html'],
  // Ties go to the server's order (html, rdf, ttl, jsonld, nt).
  ['tie: text/turtle, application/rdf+xml', 'text/turtle, application/rdf+xml', 'rdf'],
  ['tie: application/n-triples, text/turtle', 'application/n-triples, text/turtle', 'ttl'],
  ['tie: application/ld+json, text/html', 'application/ld+json, text/html', 'html'],
  ['tie between aliases: application/json, text/plain', 'text/plain, application/json', 'jsonld'],
  // The most specific range decides a type's q.
  ['text/*;q=0.1, text/turtle', 'text/*;q=0.1, text/turtle', 'ttl'],
  ['*/*;q=0.1, application/ld+json;q=0.5', '*/*;q=0.1, application/ld+json;q=0.5', 'jsonld'],
  ['specific q=0 beats its wildcard', 'text/*, text/html;q=0, application/n-triples;q=0.5', 'ttl'],
  ['specific low q beats a higher wildcard', 'text/turtle;q=0.2, */*;q=0.9', 'html'],
  // Real clients.
  ['Firefox', FIREFOX, 'html'],
  ['Chrome', CHROME, 'html'],
  ['Safari', SAFARI, 'html'],
  ['curl without -H', '*/*', 'html'],
  // Comunica's first choice, N-Quads: the N-Triples document under that type.
  ['Comunica', COMUNICA, 'nq'],
  ['rdflib.js Fetcher', RDFLIB_JS, 'ttl'],
  ['Apache Jena', JENA, 'ttl'],
  // Case and white space.
  ['upper-case type', 'TEXT/TURTLE', 'ttl'],
  ['mixed-case type', 'Application/RDF+XML', 'rdf'],
  ['upper-case Q', 'text/turtle;Q=0.5, application/ld+json;Q=0.6', 'jsonld'],
  ['spaces and tabs around ranges', ' \ttext/turtle ; q=0.5 ,\tapplication/n-triples ', 'nt'],
  // Garbage: no range parses, which means anything (HTML).
  ['garbage', 'garbage', 'html'],
  [';;;', ';;;', 'html'],
  ['text/ (no subtype)', 'text/', 'html'],
  ['/html (no type)', '/html', 'html'],
  ['*/html', '*/html', 'html'],
  ['q=1 only', 'q=1', 'html'],
  ['100 commas', ','.repeat(100), 'html'],
  ['5,000 characters of garbage', 'garbage;'.repeat(625), 'html'],
  ['garbage beside a good range', 'garbage, text/turtle', 'ttl'],
  // Invalid q: the range is skipped.
  ['q=2 alone: no range left', 'text/turtle;q=2', 'html'],
  ['q=2 skipped, the next range counts', 'text/turtle;q=2, application/rdf+xml;q=0.5', 'rdf'],
  ['q=abc skipped', 'text/turtle;q=abc, application/ld+json;q=0.1', 'jsonld'],
  ['q with four decimals skipped', 'text/turtle;q=0.0001, application/n-triples;q=0.1', 'nt'],
  ['negative q skipped', 'text/html;q=-1, text/turtle;q=0.1', 'ttl'],
  // Nothing acceptable: 406.
  ['image/png', 'image/png', undefined],
  ['application/pdf', 'application/pdf', undefined],
  ['image/*', 'image/*', undefined],
  ['only unknown RDF types', 'text/shaclc, application/x-binary-rdf', undefined],
];

describe('negotiate (HTTP contract §2)', () => {
  it('has the long real header the table promises', () => {
    assert.ok(COMUNICA.length >= 200, `${COMUNICA.length} characters`);
    assert.equal('garbage;'.repeat(625).length, 5000);
  });
  for (const [name, accept, expected] of ROWS) {
    it(`${name} → ${expected ?? '406'}`, () => assert.equal(negotiate(accept)?.name, expected));
  }
});
