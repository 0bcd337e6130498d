// Staff answers written from Oxigraph's text: the same solutions as Oxigraph's own writers give,
// in every format, cut at the caps into a document that is still whole.
import assert from 'node:assert/strict';
import oxigraph from 'oxigraph';
import { SaxesParser } from 'saxes';
import { writeBoolean, writeGraph, writeSolutions } from '../../../src/store/staffResults';
import { CannotWrite } from '../../../src/store/staff';
import { parseJsonLd, parseRdfXml, parseTurtle, sameGraph } from '../../support';

const DATA = `
<http://e/a> <http://p/label> "Grün, \\"quoted\\"\\tand\\nlines"@de .
<http://e/a> <http://p/n> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://e/a> <http://p/d> "1.5"^^<http://www.w3.org/2001/XMLSchema#decimal> .
<http://e/a> <http://p/t> "2021-12-15T13:55:44"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
<http://e/a> <http://p/b> _:node .
_:node <http://p/label> "plain & <simple>" .
<http://e/b> <http://p/label> "ünicode ✓" .
<http://e/b> <http://p/ctl> "bell\\u0007" .
`;
const SELECT = 'SELECT ?s ?p ?o ?x WHERE { ?s ?p ?o } ORDER BY ?s ?p STR(?o)';

describe('staff results', () => {
  const store = new oxigraph.Store();
  store.load(DATA, { format: 'nt' });
  const run = (format: string) => store.query(SELECT, { results_format: format }) as string;
  const tsv = run('tsv');

  it('writes the solutions Oxigraph writes, as JSON, CSV and TSV', () => {
    const json = writeSolutions(tsv, ['s', 'p', 'o', 'x'], 'json', 100, 1e6);
    assert.deepEqual(JSON.parse(json.body), JSON.parse(run('json')));
    assert.equal(json.rows, 8);
    assert.equal(json.cut, undefined);
    assert.equal(writeSolutions(tsv, ['s', 'p', 'o', 'x'], 'csv', 100, 1e6).body, run('csv'));
    assert.equal(writeSolutions(tsv, ['s', 'p', 'o', 'x'], 'tsv', 100, 1e6).body, tsv);
  });

  it('writes them as well-formed XML with the same bindings', () => {
    const { body } = writeSolutions(tsv, ['s', 'p', 'o', 'x'], 'xml', 100, 1e6);
    const parser = new SaxesParser({ xmlns: true });
    const bindings: string[] = [];
    let current: string[] = [];
    parser.on('opentag', (tag) => {
      if (tag.local === 'result') current = [];
      if (tag.local === 'literal' || tag.local === 'uri' || tag.local === 'bnode')
        current.push(
          `${tag.local}:${tag.attributes['xml:lang']?.value ?? ''}:${tag.attributes.datatype?.value ?? ''}`,
        );
    });
    parser.on('closetag', (tag) => {
      if (tag.local === 'result') bindings.push(current.join('|'));
    });
    parser.write(body).close();
    assert.equal(bindings.length, 8);
    const expected = (
      JSON.parse(run('json')) as { results: { bindings: Record<string, Record<string, string>>[] } }
    ).results.bindings.map((b) =>
      ['s', 'p', 'o']
        .map((v) => b[v]!)
        .map(
          (t) =>
            `${t.type === 'literal' ? 'literal' : t.type}:${t['xml:lang'] ?? ''}:${t.datatype ?? ''}`,
        )
        .join('|'),
    );
    assert.deepEqual(bindings, expected);
    assert.match(body, /\uFFFD/, 'a control character XML 1.0 cannot carry is replaced');
  });

  it('cuts at the row cap and at the byte cap, the document still whole', () => {
    const rows = writeSolutions(tsv, ['s', 'p', 'o', 'x'], 'json', 3, 1e6);
    assert.equal(rows.cut, 'rows');
    assert.equal(JSON.parse(rows.body).results.bindings.length, 3);
    const whole = writeSolutions(tsv, ['s', 'p', 'o', 'x'], 'json', 100, 1e6).body;
    const bytes = writeSolutions(
      tsv,
      ['s', 'p', 'o', 'x'],
      'json',
      100,
      Buffer.byteLength(whole) - 1,
    );
    assert.equal(bytes.cut, 'bytes');
    assert.ok(Buffer.byteLength(bytes.body) < Buffer.byteLength(whole));
    assert.equal(JSON.parse(bytes.body).results.bindings.length, bytes.rows);
  });

  it('writes booleans as JSON and XML', () => {
    assert.deepEqual(JSON.parse(writeBoolean(true, 'json').body), { head: {}, boolean: true });
    assert.match(writeBoolean(false, 'xml').body, /<boolean>false<\/boolean>/);
  });

  it('refuses to write RDF/XML that XML cannot carry (CannotWrite: a 406)', () => {
    const nt = store.query('CONSTRUCT WHERE { ?s ?p ?o }', { results_format: 'nt' }) as string;
    assert.throws(() => writeGraph(nt, 'rdf', 100, 1e6), CannotWrite);
  });

  it('writes a graph in each RDF format, the same graph, and cuts it by triples and bytes', async () => {
    const nt = store.query(
      'CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o FILTER(?p != <http://p/ctl>) }',
      { results_format: 'nt' },
    ) as string;
    const expected = parseTurtle(nt, 'application/n-triples');
    assert.ok(sameGraph(parseTurtle(writeGraph(nt, 'ttl', 100, 1e6).body), expected));
    assert.ok(
      sameGraph(
        parseTurtle(writeGraph(nt, 'nt', 100, 1e6).body, 'application/n-triples'),
        expected,
      ),
    );
    assert.ok(sameGraph(await parseRdfXml(writeGraph(nt, 'rdf', 100, 1e6).body), expected));
    assert.ok(sameGraph(await parseJsonLd(writeGraph(nt, 'jsonld', 100, 1e6).body), expected));
    const cut = writeGraph(nt, 'ttl', 4, 1e6);
    assert.equal(cut.cut, 'rows');
    assert.equal(parseTurtle(cut.body).length, 4);
    const small = writeGraph(nt, 'rdf', 100, 600);
    assert.equal(small.cut, 'bytes');
    assert.ok(Buffer.byteLength(small.body) <= 600);
    assert.equal((await parseRdfXml(small.body)).length, small.rows);
  });
});
