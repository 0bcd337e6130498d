// Staff queries are judged on their algebra: updates and SERVICE refused wherever they hide, the
// form and projection read, and the row cap added without changing what the query asks.
import assert from 'node:assert/strict';
import oxigraph from 'oxigraph';
import { checkQuery, QueryRefused } from '../../../src/store/staffQuery';

const BASE = 'http://staff.example/sparql';

function refused(text: string): QueryRefused {
  try {
    checkQuery(text, 100, BASE);
  } catch (error) {
    assert.ok(error instanceof QueryRefused, `${text}: ${String(error)}`);
    return error;
  }
  assert.fail(`${text} was not refused`);
}

describe('checkQuery', () => {
  it('refuses every kind of update with 403, whatever its spelling', () => {
    for (const update of [
      'INSERT DATA { <a:s> <a:p> <a:o> }',
      'delete data { <a:s> <a:p> <a:o> }',
      'DELETE WHERE { ?s ?p ?o }',
      'WITH <a:g> DELETE { ?s ?p ?o } INSERT { ?s ?p 1 } WHERE { ?s ?p ?o }',
      'CLEAR ALL',
      'DROP SILENT GRAPH <a:g>',
      'LOAD <http://example.org/data.ttl>',
      'CREATE GRAPH <a:g>',
      'ADD <a:g> TO <a:h>',
      'MOVE DEFAULT TO <a:g>',
      'COPY <a:g> TO DEFAULT',
      'PREFIX x: <a:> INSERT DATA { x:s x:p x:o } ; CLEAR ALL',
      '# a comment first\nINSERT DATA { <a:s> <a:p> <a:o> }',
    ]) {
      const error = refused(update);
      assert.equal(error.status, 403, update);
      assert.match(error.message, /read-only/);
    }
  });

  it('refuses SERVICE with 403 wherever it is in the query', () => {
    for (const query of [
      'SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }',
      'SELECT * WHERE { ?s ?p ?o OPTIONAL { SERVICE SILENT <http://example.org/sparql> { ?s ?q ?r } } }',
      'SELECT * WHERE { { SELECT ?s WHERE { SERVICE <http://x.example/> { ?s ?p ?o } } } }',
      'CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o MINUS { SERVICE <http://x.example/> { ?s ?p ?o } } }',
    ]) {
      const error = refused(query);
      assert.equal(error.status, 403, query);
      assert.match(error.message, /SERVICE/);
    }
  });

  it('says where a syntax error is: line and column', () => {
    const error = refused(
      'PREFIX foaf: <http://xmlns.com/foaf/0.1/>\nSELECT * WHERE {\n  ?s foaf:name }',
    );
    assert.equal(error.status, 400);
    assert.match(error.message, /line 3, column 16/);
    assert.match(refused('ASK {').message, /end of query/);
  });

  it('reads the form and the projected variables in their order', () => {
    assert.equal(checkQuery('ASK {}', 100, BASE).form, 'ask');
    assert.equal(checkQuery('DESCRIBE <a:x>', 100, BASE).form, 'describe');
    assert.equal(checkQuery('CONSTRUCT WHERE { ?s ?p ?o }', 100, BASE).form, 'construct');
    const select = checkQuery('SELECT ?z ?a WHERE { ?a ?b ?z }', 100, BASE);
    assert.equal(select.form, 'select');
    assert.deepEqual(select.variables, ['z', 'a']);
    const inner = checkQuery('SELECT ?n WHERE { { SELECT ?n WHERE { ?n ?p ?o } } }', 100, BASE);
    assert.deepEqual(inner.variables, ['n']);
  });

  it('tells a query that names its own dataset', () => {
    assert.equal(checkQuery('SELECT * FROM <a:g> WHERE { ?s ?p ?o }', 100, BASE).ownDataset, true);
    assert.equal(
      checkQuery('SELECT * FROM NAMED <a:g> WHERE { GRAPH ?g { ?s ?p ?o } }', 100, BASE).ownDataset,
      true,
    );
    assert.equal(checkQuery('SELECT * WHERE { ?s ?p ?o }', 100, BASE).ownDataset, false);
  });

  it('caps the rows with a LIMIT one past the cap, and keeps a lower LIMIT as it is', () => {
    const open = checkQuery('SELECT * WHERE { ?s ?p ?o }', 100, BASE);
    assert.equal(open.capped, true);
    assert.match(open.text, /LIMIT 101\s*$/);
    const high = checkQuery('SELECT * WHERE { ?s ?p ?o } OFFSET 5 LIMIT 1000', 100, BASE);
    assert.match(high.text, /OFFSET 5/);
    assert.match(high.text, /LIMIT 101/);
    const low = checkQuery('SELECT * WHERE { ?s ?p ?o } LIMIT 7', 100, BASE);
    assert.equal(low.capped, false);
    assert.equal(low.text, 'SELECT * WHERE { ?s ?p ?o } LIMIT 7');
    assert.equal(checkQuery('ASK { ?s ?p ?o }', 100, BASE).capped, false);
  });

  it('asks the same of the store once capped: each example shape gives the same rows under the cap', () => {
    const store = new oxigraph.Store();
    let data = '';
    for (let i = 0; i < 30; i++)
      data += `<http://e/${i}> <http://p/name> "n${i % 7}"@de <http://g/${i % 3}> .\n<http://e/${i}> <http://p/n> "${i}"^^<http://www.w3.org/2001/XMLSchema#integer> <http://g/${i % 3}> .\n`;
    store.load(data, { format: 'nq' });
    for (const query of [
      'SELECT ?n (COUNT(*) AS ?c) WHERE { ?s <http://p/name> ?n } GROUP BY ?n HAVING (COUNT(*) > 1) ORDER BY DESC(?c) ?n',
      'SELECT ?s ?v WHERE { ?s <http://p/n> ?v FILTER(?v > 10) OPTIONAL { ?s <http://p/name> ?n } } ORDER BY ?v',
      'SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?g',
      'SELECT ?s WHERE { ?s <http://p/n> ?v } ORDER BY ?v OFFSET 3',
      'SELECT ?s (STRLEN(STR(?n)) AS ?l) WHERE { ?s <http://p/name> ?n BIND(LANG(?n) AS ?lang) FILTER(?lang = "de") } ORDER BY ?s',
      'SELECT ?s WHERE { VALUES ?v { 1 2 3 } ?s <http://p/n> ?v } ORDER BY ?s',
      'SELECT ?s WHERE { ?s <http://p/n> ?v FILTER NOT EXISTS { ?s <http://p/name> "n1"@de } } ORDER BY ?s',
    ]) {
      const checked = checkQuery(query, 1000, BASE);
      assert.equal(checked.capped, true, query);
      const run = (text: string) =>
        store.query(text, { use_default_graph_as_union: true, results_format: 'tsv' }) as string;
      const rows = (tsv: string) => tsv.split('\n').slice(1).join('\n');
      assert.equal(rows(run(checked.text)), rows(run(query)), query);
    }
  });
});
