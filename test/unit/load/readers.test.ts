// The one list of input formats (src/load/read/readers.ts): every reader named once, each extension
// chosen by the list, a shared extension told apart by the file's first bytes, and what no reader
// of a shared extension takes refused with what it could have been.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LoadError } from '../../../src/load/loadError';
import { NAME_LIST_HEADER } from '../../../src/load/read/listRecords';
import {
  detect,
  FORMAT_NAMES,
  knownExtension,
  READERS,
  readerOf,
  readsRecords,
} from '../../../src/load/read/readers';

describe('the readers registry', () => {
  let dir: string;
  const file = (name: string, text: string) => {
    const at = path.join(dir, name);
    fs.writeFileSync(at, text);
    return at;
  };
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isil-ld-readers-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names each format once, and --format lists exactly the readers', () => {
    assert.equal(new Set(FORMAT_NAMES).size, READERS.length);
    assert.deepEqual([...FORMAT_NAMES].sort(), [
      'jsonld',
      'links',
      'lobid',
      'names',
      'nq',
      'nt',
      'pica',
      'positions',
      'ppxml',
      'rdf',
      'redirects',
      'trig',
      'ttl',
    ]);
    for (const name of FORMAT_NAMES) assert.equal(readerOf(name).format, name);
  });

  it('an extension several readers share has at most one that takes what none recognises', () => {
    const byExtension = new Map<string, (typeof READERS)[number][]>();
    for (const reader of READERS)
      for (const ext of reader.extensions)
        byExtension.set(ext, [...(byExtension.get(ext) ?? []), reader]);
    for (const [ext, readers] of byExtension) {
      assert.equal(ext, ext.toLowerCase());
      if (readers.length > 1)
        assert.ok(readers.filter((r) => r.recognise === undefined).length <= 1, ext);
    }
  });

  it('chooses by extension where one reader has it', () => {
    for (const [ext, format] of [
      ['.nt', 'nt'],
      ['.owl', 'rdf'],
      ['.json', 'jsonld'],
      ['.pica', 'pica'],
      ['.dat', 'pica'],
    ] as const)
      assert.equal(detect(path.join(dir, `x${ext}`), ext), format);
    assert.equal(knownExtension('.csv'), false);
  });

  it('tells PicaPlus-XML from RDF/XML by the first bytes of a .xml', () => {
    const ppxml = file(
      'a.xml',
      '<?xml version="1.0"?><ppxml:record xmlns:ppxml="http://www.oclcpica.org/xmlns/ppxml-1.0"/>',
    );
    const rdfxml = file(
      'b.xml',
      '<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>',
    );
    assert.equal(detect(ppxml, '.xml'), 'ppxml');
    assert.equal(detect(rdfxml, '.xml'), 'rdf');
  });

  it('tells the name list from the redirect list by the first line of a .tsv, or refuses it', () => {
    assert.equal(detect(file('n.tsv', `${NAME_LIST_HEADER}\n1\tDE-1\t\tA\n`), '.tsv'), 'names');
    assert.equal(detect(file('r.tsv', 'DE-2\tDE-1\n'), '.tsv'), 'redirects');
    assert.equal(
      detect(file('w.tsv', '?item\t?itemLabel\t?isil\t?gndId\t?dbsId\n'), '.tsv'),
      'links',
    );
    assert.throws(
      () => detect(file('x.tsv', 'a,b,c\n'), '.tsv'),
      (error: unknown) =>
        error instanceof LoadError &&
        /neither a name list \(header "id<TAB>isil<TAB>sigel<TAB>name"\) nor a redirect list/.test(
          error.message,
        ),
    );
  });

  it("takes lobid-organisations' JSON lines by their first line, and refuses other JSON lines", () => {
    const action =
      '{"index":{"_index":"organisations","_id":"http://lobid.org/organisations/DE-1a#!"}}';
    assert.equal(detect(file('bulk.jsonl', `${action}\n{}\n`), '.jsonl'), 'lobid');
    const document = '{"@context":"http://lobid.org/organisations/context.jsonld","isil":"DE-1a"}';
    assert.equal(detect(file('docs.ndjson', `${document}\n`), '.ndjson'), 'lobid');
    assert.throws(
      () => detect(file('history.jsonl', '{"history":1}\n'), '.jsonl'),
      (error: unknown) =>
        error instanceof LoadError &&
        error.message.endsWith(": not lobid-organisations' JSON-LD lines"),
    );
  });

  it('record readers read records; the RDF readers name the store format they are parsed as', () => {
    for (const reader of READERS)
      if (readsRecords(reader))
        assert.ok(
          ['pica', 'ppxml', 'names', 'redirects', 'links', 'positions', 'lobid'].includes(
            reader.format,
          ),
        );
      else assert.equal(reader.storeFormat, reader.format);
  });
});
