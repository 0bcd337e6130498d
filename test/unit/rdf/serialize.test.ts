// Serializers and the N-Triples reader: awkward terms survive every format, read back by other parsers.
import assert from 'node:assert/strict';
import { DataFactory, Writer, type Literal, type Quad } from 'n3';
import { toDescription, labelBlankNodes } from '../../../src/rdf/description';
import { toJsonLd } from '../../../src/rdf/jsonld';
import {
  decodeTerm,
  NTriplesError,
  parseNTriples,
  splitNTriples,
  splitWrittenNTriples,
} from '../../../src/rdf/ntriples';
import { localNameStart, SerializationError, toRdfXml } from '../../../src/rdf/rdfxml';
import { toNTriples, toTurtle } from '../../../src/rdf/turtle';
import { parseJsonLd, parseRdfXml, parseTurtle, sameGraph } from '../../support';

const { namedNode, blankNode, literal, quad } = DataFactory;
const R = 'https://ld.zdb-services.de/resource/organisations/DE-Tue120';
const XSD = 'http://www.w3.org/2001/XMLSchema#';

/** Literals and IRIs that break naive writers. */
const AWKWARD: Quad[] = [
  quad(
    namedNode(R),
    namedNode('http://xmlns.com/foaf/0.1/name'),
    literal('Universitätsbibliothek "Tübingen" \\ <b>&amp;</b>\nzweite Zeile\r\tTab'),
  ),
  quad(
    namedNode(R),
    namedNode('http://purl.org/dc/elements/1.1/description'),
    literal('Ümlaut in NFD: Tu\u0308bingen, emoji 📚, CJK 図書館'),
  ),
  quad(
    namedNode(R),
    namedNode('http://purl.org/dc/elements/1.1/description'),
    literal('Bibliothèque', 'fr'),
  ),
  quad(
    namedNode(R),
    namedNode('http://purl.org/dc/elements/1.1/description'),
    literal('library', 'en-GB'),
  ),
  quad(
    namedNode(R),
    namedNode('http://example.org/count'),
    literal('0042', namedNode(`${XSD}integer`)),
  ),
  quad(namedNode(R), namedNode('http://example.org/ns#with.dot'), literal('')),
  // An empty string beside other values of the same property (jsonld.js's framing drops it there),
  // plain, and typed with the type of a term of the context, which compacts it to a bare "" too.
  quad(namedNode(R), namedNode('http://purl.org/dc/elements/1.1/description'), literal('')),
  quad(
    namedNode(R),
    namedNode('http://purl.org/dc/terms/modified'),
    literal('', namedNode(`${XSD}dateTime`)),
  ),
  quad(
    namedNode(R),
    namedNode('http://purl.org/dc/terms/modified'),
    literal('2021-01-01T00:00:00', namedNode(`${XSD}dateTime`)),
  ),
  quad(namedNode(R), namedNode('http://purl.org/dc/elements/1.1/description'), literal('', 'de')),
  quad(namedNode(R), namedNode('http://purl.org/dc/elements/1.1/description'), literal('b', 'de')),
  // Local names: the longest NCName the IRI ends with (no digit first), non-ASCII name characters.
  quad(namedNode(R), namedNode('http://example.org/ns/123start'), literal('digit before')),
  quad(namedNode(R), namedNode('http://example.org/ns/Straße·ä-1.x'), literal('non-ASCII')),
  quad(
    namedNode(R),
    namedNode('http://xmlns.com/foaf/0.1/homepage'),
    namedNode("http://example.org/a%20b?q='x'&y=(z)#frag"),
  ),
  quad(
    namedNode(R),
    namedNode('http://www.w3.org/2006/vcard/ns#email'),
    namedNode('mailto:a@example.org'),
  ),
  quad(namedNode(R), namedNode('http://www.w3.org/2006/vcard/ns#adr'), blankNode('x1')),
  quad(blankNode('x1'), namedNode('http://www.w3.org/2006/vcard/ns#locality'), literal('Tübingen')),
  quad(blankNode('x1'), namedNode('http://example.org/nested'), blankNode('x2')),
  quad(blankNode('x2'), namedNode('http://example.org/deep'), literal('two levels down')),
  quad(namedNode(R), namedNode('http://example.org/shared'), blankNode('s')),
  quad(namedNode(R), namedNode('http://example.org/shared-again'), blankNode('s')),
  quad(blankNode('s'), namedNode('http://example.org/v'), literal('referenced twice')),
  quad(blankNode('c1'), namedNode('http://example.org/next'), blankNode('c2')),
  quad(blankNode('c2'), namedNode('http://example.org/next'), blankNode('c1')),
  quad(namedNode(R), namedNode('http://example.org/cycle'), blankNode('c1')),
];

function describe_(quads: readonly Quad[]) {
  return toDescription(R, new Writer({ format: 'N-Triples' }).quadsToString(quads as Quad[]));
}

describe('serializers', () => {
  let description: ReturnType<typeof describe_>;
  before(() => {
    description = describe_(AWKWARD);
  });

  it('the N-Triples reader reads what N3.js writes, escapes included', () => {
    assert.ok(
      sameGraph(parseNTriples(new Writer({ format: 'N-Triples' }).quadsToString(AWKWARD)), AWKWARD),
    );
  });
  it('the N-Triples reader resolves \\u and \\U escapes', () => {
    const [q] = parseNTriples('<http://a> <http://b> "A\\u00E4\\U0001F4DA\\"" .\n');
    assert.equal(q!.object.value, 'Aä📚"');
  });
  it('splitNTriples keeps the text of each term, escapes unresolved; decodeTerm resolves them', () => {
    const [t] = splitNTriples('<http://a> <http://b> "x\\ty"@de-CH .\n');
    assert.deepEqual(t, { s: '<http://a>', p: '<http://b>', o: '"x\\ty"@de-CH' });
    const term = decodeTerm(t!.o);
    assert.equal(term.termType, 'Literal');
    assert.equal(term.value, 'x\ty');
    assert.equal((term as Literal).language, 'de-ch');
  });
  it('splitNTriples reads tabs, CRLF line ends, comments and blank lines', () => {
    const text =
      '# head\r\n\r\n_:a\t<http://b>\t<http://c> . # tail\r\n  <http://a> <http://b> _:a.\n';
    assert.deepEqual(splitNTriples(text), [
      { s: '_:a', p: '<http://b>', o: '<http://c>' },
      { s: '<http://a>', p: '<http://b>', o: '_:a' },
    ]);
  });
  it('splitWrittenNTriples reads what writers write as splitNTriples does', () => {
    const written = new Writer({ format: 'N-Triples' }).quadsToString(AWKWARD);
    assert.ok(written.length > 0);
    assert.deepEqual(splitWrittenNTriples(written), splitNTriples(written));
    assert.deepEqual(splitWrittenNTriples(''), []);
    assert.deepEqual(splitWrittenNTriples('<http://a> <http://b> "x y ."@en .'), [
      { s: '<http://a>', p: '<http://b>', o: '"x y ."@en' },
    ]);
  });
  it('splitWrittenNTriples hands any other shape to the checking reader', () => {
    const text =
      '# head\r\n\r\n_:a\t<http://b>\t<http://c> . # tail\r\n  <http://a> <http://b> _:a.\n';
    assert.deepEqual(splitWrittenNTriples(text), splitNTriples(text));
    for (const bad of [
      '<http://a> <http://b> "open .',
      '<http://a> "p" <http://c> .',
      '<http://a> <http://b> <http://c>',
      '<http://a b> <http://b> <http://c> .',
      '<http://a> <http://b> <http://c> .\n<http://a> <http://b> x .\n',
      // What a lenient load lets into the store, and Oxigraph writes back as it is.
      '<http://a> <http://b> <http://x y> .',
      '<http://a> <http://p q> <http://c> .',
      '<http://a> <http://b> "x"junk .',
      '<http://a> <http://b> "x"@en junk .',
      '<http://a> <http://b> "x"^^<http://t y> .',
      '<http://a> <http://b> _x .',
      '_x <http://b> <http://c> .',
      '<http://a> <http://b> <<( <http://s> <http://p> <http://o> )>> .',
    ])
      assert.throws(() => splitWrittenNTriples(bad), NTriplesError, bad);
    // Two spaces before the dot: not as writers put it, but N-Triples all the same.
    const spaced = '<http://a> <http://b> <http://c>  .\n';
    assert.deepEqual(splitWrittenNTriples(spaced), splitNTriples(spaced));
    assert.deepEqual(splitWrittenNTriples(spaced)[0]!.o, '<http://c>');
  });
  it('splitWrittenNTriples reads by position: an escape inside a term is left to decodeTerm', () => {
    // The checking reader refuses the escape at once; read by position, it is found when the term
    // is decoded. This is what the fast reading leaves out, for the store's own output only.
    const text = '<http://a> <http://b> "x\\q" .\n';
    assert.throws(() => splitNTriples(text), NTriplesError);
    const [t] = splitWrittenNTriples(text);
    assert.equal(t!.o, '"x\\q"');
    assert.throws(() => decodeTerm(t!.o), NTriplesError);
  });
  for (const bad of [
    '<http://a> <http://b> "open .',
    '<http://a> "p" <http://c> .',
    '<http://a> <http://b> <http://c>',
    '<http://a> <http://b> "x\\q" .',
  ]) {
    it(`the N-Triples reader refuses ${JSON.stringify(bad)}`, () =>
      assert.throws(() => parseNTriples(bad), NTriplesError));
  }
  it('Turtle, read by N3.js, is the same graph', () =>
    assert.ok(sameGraph(parseTurtle(toTurtle(description)), AWKWARD)));
  it('N-Triples, read by N3.js, is the same graph', () =>
    assert.ok(sameGraph(parseTurtle(toNTriples(description), 'application/n-triples'), AWKWARD)));
  it('RDF/XML, read by rdfxml-streaming-parser, is the same graph', async () =>
    assert.ok(sameGraph(await parseRdfXml(toRdfXml(description)), AWKWARD)));
  it('JSON-LD, read by jsonld-streaming-parser, is the same graph', async () =>
    assert.ok(
      sameGraph(
        await parseJsonLd(await toJsonLd(description, 'https://example.org/context.jsonld')),
        AWKWARD,
      ),
    ));
  it('JSON-LD puts the institution on top', async () => {
    assert.equal(JSON.parse(await toJsonLd(description, 'https://example.org/c.jsonld'))['@id'], R);
  });
  it('RDF/XML refuses a literal with a character XML 1.0 cannot carry', () => {
    const bad = describe_([
      quad(namedNode(R), namedNode('http://xmlns.com/foaf/0.1/name'), literal('bell \u0007')),
    ]);
    assert.throws(() => toRdfXml(bad), SerializationError);
  });
  for (const predicate of [
    'http://example.org/ends/',
    'http://example.org/ns#',
    'http://example.org/ns/123',
    'http://example.org/v1.2/',
    // Syntax names (RDF 1.1 XML Syntax §7.2.5), and rdf:li, which a parser reads as rdf:_1 (§7.4).
    'http://www.w3.org/1999/02/22-rdf-syntax-ns#li',
    'http://www.w3.org/1999/02/22-rdf-syntax-ns#Description',
    'http://www.w3.org/1999/02/22-rdf-syntax-ns#about',
  ])
    it(`RDF/XML refuses the predicate <${predicate}>`, () => {
      const bad = describe_([quad(namedNode(R), namedNode(predicate), literal('x'))]);
      assert.throws(() => toRdfXml(bad), SerializationError);
    });
});

describe('the XML local name an IRI ends with', () => {
  const cases: [iri: string, local: string | undefined][] = [
    ['http://example.org/ns#name', 'name'],
    ['http://example.org/ns/123start', 'start'],
    ['http://example.org/ns/a-1.b_c', 'a-1.b_c'],
    ['http://example.org/ns/-x', 'x'],
    ['http://example.org/ns/Straße·ä', 'Straße·ä'],
    ['http://example.org/ns/\u{10000}\u{EFFFF}x', '\u{10000}\u{EFFFF}x'],
    ['http://example.org/ns/x\u{F0000}', undefined],
    ['http://example.org/ns/12', undefined],
    ['http://example.org/ns/', undefined],
  ];
  for (const [iri, local] of cases)
    it(`${JSON.stringify(iri)}: ${local === undefined ? 'none' : JSON.stringify(local)}`, () => {
      const at = localNameStart(iri);
      assert.equal(at < 0 ? undefined : iri.slice(at), local);
    });
  it('a long run of name characters that is not at the end has no name, and is read once', () => {
    const iri = `http://example.org/${'a'.repeat(200_000)}/`;
    assert.equal(localNameStart(iri), -1);
    assert.equal(localNameStart(`${iri}x`), iri.length);
  });
});

describe('blank node labels', () => {
  it('do not depend on the labels the store gave', () => {
    const renamed = AWKWARD.map((q) => {
      const r = <T extends Quad['subject'] | Quad['object']>(t: T) =>
        t.termType === 'BlankNode' ? (blankNode(`other${t.value}`) as T) : t;
      return quad(r(q.subject), q.predicate, r(q.object));
    });
    assert.equal(toNTriples(describe_(renamed)), toNTriples(describe_(AWKWARD)));
  });
  it('do not depend on the order of the triples', () => {
    assert.equal(toTurtle(describe_([...AWKWARD].reverse())), toTurtle(describe_(AWKWARD)));
  });
  it('differ for blank nodes that say different things', () => {
    const labelled = labelBlankNodes(
      splitNTriples(new Writer({ format: 'N-Triples' }).quadsToString(AWKWARD)),
    );
    const labels = new Set(labelled.filter((t) => t.s.startsWith('_:')).map((t) => t.s));
    assert.equal(labels.size, 5);
  });
  it('keep identical blank nodes apart', () => {
    const twins = [
      quad(namedNode(R), namedNode('http://www.w3.org/2006/vcard/ns#tel'), blankNode('a')),
      quad(namedNode(R), namedNode('http://www.w3.org/2006/vcard/ns#tel'), blankNode('b')),
      quad(
        blankNode('a'),
        namedNode('http://www.w3.org/1999/02/22-rdf-syntax-ns#value'),
        literal('+49 1'),
      ),
      quad(
        blankNode('b'),
        namedNode('http://www.w3.org/1999/02/22-rdf-syntax-ns#value'),
        literal('+49 1'),
      ),
    ];
    const d = describe_(twins);
    assert.equal(d.quads.length, 4);
    assert.ok(sameGraph(parseTurtle(toTurtle(d)), twins));
  });
});
