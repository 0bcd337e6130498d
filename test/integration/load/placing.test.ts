// An N-Triples file read straight into the graphs of its descriptions (src/load/place/placedNTriples.ts):
// each description as `descriptionQuads` makes it, through the real store; the same dataset and
// snapshot lines as the store's parser and placing after it give (a file with CRLF line ends is
// read that way); and the lines this reading does not vouch for. A file of several pieces holds
// blank nodes across them, errors with their lines, and the same dataset.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Parser, type Quad } from 'n3';
import { isomorphic } from 'rdf-isomorphic';
import { generate } from '../../../src/generate/generated';
import { MAX_LITERAL_LENGTH } from '../../../src/load/limits';
import { LoadError, loadSources, type Loaded } from '../../../src/load/loadSources';
import {
  placedPieces,
  planDescriptions,
  splitTriple,
} from '../../../src/load/place/placedNTriples';
import { MAX_BLANK_NODE_DEPTH } from '../../../src/store/descriptions';
import { BASE, tempDir } from '../../support';

const X = `<${BASE}/resource/organisations/DE-X>`;
const Y = `<${BASE}/resource/organisations/DE-Y>`;
const GX = `<${BASE}/data/organisations/DE-X>`;
const GY = `<${BASE}/data/organisations/DE-Y>`;
const P = '<http://example.org/p>';
const URL = '<http://www.w3.org/2006/vcard/ns#url>';
const HOMEPAGE = '<http://xmlns.com/foaf/0.1/homepage>';

function quads(nquads: string): Quad[] {
  return new Parser({ format: 'application/n-quads' }).parse(nquads);
}

let dir: string;
before(() => (dir = tempDir()));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Whether this reading vouches for the file (else the store's parser reads it, and places after). */
function vouched(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    return planDescriptions(fd, BASE, { update: () => undefined }, () => undefined) !== undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Loads `ntriples` as the only source, a file of its own, read straight into the graphs of its
 * descriptions unless `vouched` is false; gives the load to `use`.
 */
async function loaded<T>(
  ntriples: string,
  use: (loaded: Loaded) => T,
  straight = true,
): Promise<T> {
  const file = path.join(dir, `source-${Math.random().toString(36).slice(2)}.nt`);
  fs.writeFileSync(file, ntriples);
  assert.equal(vouched(file), straight);
  // Its snapshot's pieces go to a file beside the source, read back by `use`.
  const load = await loadSources([file], { baseIri: BASE, snapshot: `${file}.nq` });
  try {
    return use(load);
  } finally {
    load.canonical?.snapshot?.discard();
    load.dataset.free();
  }
}

/** Whether `ntriples` loaded gives the dataset `expected` (N-Quads), blank nodes matched. */
async function places(ntriples: string, expected: string): Promise<void> {
  const dump = await loaded(ntriples, (load) => load.dataset.store.dump());
  assert.ok(isomorphic(quads(dump), quads(expected)), dump);
}

describe('placedNTriples: an N-Triples source read into the graphs of its descriptions', () => {
  it('puts an institution its own triples in its graph', () =>
    places(
      `${X} ${P} "a" .\n${X} ${P} <http://example.org/o> .\n`,
      `${X} ${P} "a" ${GX} .\n${X} ${P} <http://example.org/o> ${GX} .\n`,
    ));

  it(`follows a chain of ${MAX_BLANK_NODE_DEPTH} blank nodes, and no further, written deepest first`, () => {
    const lines = [`${X} ${P} _:b1 .`];
    for (let level = 1; level <= MAX_BLANK_NODE_DEPTH; level++)
      lines.push(`_:b${level} ${P} _:b${level + 1} .`);
    lines.push(`_:b${MAX_BLANK_NODE_DEPTH + 1} ${P} "too deep" .`);
    const placed = lines.slice(0, -1).map((line) => `${line.slice(0, -2)} ${GX} .`);
    return places(
      `${[...lines].reverse().join('\n')}\n`,
      `${[...placed, lines.at(-1)!].join('\n')}\n`,
    );
  });

  it('ends on a cycle of blank nodes', () =>
    places(
      `${X} ${P} _:a .\n_:a ${P} _:b .\n_:b ${P} _:a .\n`,
      `${X} ${P} _:a ${GX} .\n_:a ${P} _:b ${GX} .\n_:b ${P} _:a ${GX} .\n`,
    ));

  it('puts a blank node and a named node two institutions link to in both graphs', () =>
    places(
      `${X} ${URL} <https://example.org/shared> .\n${Y} ${URL} <https://example.org/shared> .\n` +
        `<https://example.org/shared> ${P} "shared" .\n${X} ${P} _:s .\n${Y} ${P} _:s .\n_:s ${P} "s" .\n`,
      `${X} ${URL} <https://example.org/shared> ${GX} .\n${Y} ${URL} <https://example.org/shared> ${GY} .\n` +
        `<https://example.org/shared> ${P} "shared" ${GX} .\n<https://example.org/shared> ${P} "shared" ${GY} .\n` +
        `${X} ${P} _:s ${GX} .\n${Y} ${P} _:s ${GY} .\n_:s ${P} "s" ${GX} .\n_:s ${P} "s" ${GY} .\n`,
    ));

  it('puts an institution another links to with v:url in both graphs', () =>
    places(
      `${X} ${URL} ${Y} .\n${Y} ${P} "y" .\n`,
      `${X} ${URL} ${Y} ${GX} .\n${Y} ${P} "y" ${GY} .\n${Y} ${P} "y" ${GX} .\n`,
    ));

  it('leaves in the default graph what belongs to no description (foaf:homepage is not followed)', () =>
    places(
      `${X} ${HOMEPAGE} <https://example.org/> .\n<https://example.org/> ${P} "not part of it" .\n_:lone ${P} "blank" .\n`,
      `${X} ${HOMEPAGE} <https://example.org/> ${GX} .\n<https://example.org/> ${P} "not part of it" .\n_:lone ${P} "blank" .\n`,
    ));

  it('keeps comments, tabs, and labels and literals that read like a line end', () =>
    places(
      `# a comment\n${X}\t${P}  "a .\\n_:b" . # another\n\n${X} ${P} _:b.\n_:b ${P} "x"@de-DE .\n`,
      `${X} ${P} "a .\\n_:b" ${GX} .\n${X} ${P} _:b ${GX} .\n_:b ${P} "x"@de-DE ${GX} .\n`,
    ));

  it('gives the dataset and snapshot lines of the store parsing it and placing after (CRLF)', async () => {
    const text = [...generate({ count: 60, seed: 5, base: BASE })].join('');
    const read = (ntriples: string, straight: boolean) =>
      loaded(
        ntriples,
        (load) => ({
          dump: load.dataset.store.dump(),
          pieces: Buffer.concat([...load.canonical!.snapshot!.pieces()]).toString(),
          version: load.dataset.version,
        }),
        straight,
      );
    const once = await read(text, true);
    const twice = await read(text.replaceAll('\n', '\r\n'), false);
    assert.ok(isomorphic(quads(once.dump), quads(twice.dump)));
    assert.equal(once.pieces, twice.pieces);
    assert.equal(once.version, twice.version);
  });
});

describe('placedNTriples: a file of several pieces', () => {
  /** About 2.5 MB of generated institutions: three pieces of CHUNK_BYTES and more. */
  const generated = () => [...generate({ count: 600, seed: 7, base: BASE })].join('');

  it('gives the dataset, snapshot and version of the store’s parser and placing after, blank nodes spanning pieces', async () => {
    // A blank node on the first line and the last, and one two institutions far apart share.
    const text =
      `${X} ${P} _:far .\n${X} ${P} _:shared .\n${generated()}` +
      `${Y} ${P} _:shared .\n_:shared ${P} "shared" .\n_:far ${P} "far" .\n`;
    assert.ok(text.length > 2 * (1 << 20), 'more than two pieces');
    // CRLF line ends: a file this reading does not vouch for, parsed by the store and placed after.
    const read = (ntriples: string, straight: boolean) =>
      loaded(
        ntriples,
        (load) => ({
          dump: load.dataset.store.dump(),
          pieces: Buffer.concat([...load.canonical!.snapshot!.pieces()]).toString(),
          version: load.dataset.version,
        }),
        straight,
      );
    const here = await read(text.replaceAll('\n', '\r\n'), false);
    const there = await read(text, true);
    // The canonical snapshot's lines: the same dataset, blank nodes matched (an isomorphism test
    // of 80,000 quads would take half a minute).
    assert.equal(there.pieces, here.pieces);
    assert.equal(there.version, here.version);
    assert.match(there.dump, new RegExp(`^_:\\S+ ${P} "far" ${GX} \\.$`, 'm'));
    assert.match(there.dump, new RegExp(`^_:\\S+ ${P} "shared" ${GY} \\.$`, 'm'));
  });

  it('refuses a line the store cannot parse in a later piece with its line in the file', async () => {
    const lines = generated().split('\n');
    const at = lines.length - 10;
    lines[at] = `${X} ${P} <not an absolute IRI> .`;
    const file = path.join(dir, 'broken.nt');
    fs.writeFileSync(file, lines.join('\n'));
    await assert.rejects(loadSources([file], { baseIri: BASE }), (error: Error) => {
      assert.ok(error instanceof LoadError, String(error));
      assert.equal(error.line, at + 1, error.message);
      return true;
    });
  });

  it('leaves no file open when a load fails', async function () {
    if (!fs.existsSync('/proc/self/fd')) this.skip();
    const lines = generated().split('\n');
    lines[lines.length - 10] = `${X} ${P} <not an absolute IRI> .`;
    const file = path.join(dir, 'broken-again.nt');
    fs.writeFileSync(file, lines.join('\n'));
    const open = () => fs.readdirSync('/proc/self/fd').length;
    const fail = () => assert.rejects(loadSources([file], { baseIri: BASE }), LoadError);
    // The first thread of a process opens what the runtime keeps for threads from then on.
    await fail();
    const before = open();
    for (let i = 0; i < 3; i++) await fail();
    assert.equal(open(), before);
  });
  it('refuses a literal past the limit as the store’s parser and placing after do', async () => {
    const long = 'x'.repeat(MAX_LITERAL_LENGTH + 1);
    const text = `${generated()}${X} ${P} "${long}" .\n`;
    const refusal = async (name: string, ntriples: string) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, ntriples);
      return loadSources([file], { baseIri: BASE }).then(
        () => assert.fail('loaded'),
        (error: Error) => error,
      );
    };
    const placed = await refusal('long.nt', text);
    const parsed = await refusal('long-crlf.nt', text.replaceAll('\n', '\r\n'));
    assert.ok(placed instanceof LoadError, String(placed));
    assert.ok(vouched(path.join(dir, 'long.nt')));
    assert.equal(placed.message.replace('long.nt', ''), parsed.message.replace('long-crlf.nt', ''));
  });
});

describe('placedNTriples: a file that changes between the two passes', () => {
  it('is refused with the first line not as planned, not loaded with cut terms', () => {
    const file = path.join(dir, 'changing.nt');
    fs.writeFileSync(file, `${X} ${P} "a" .\n${X} ${P} "x" .\n`);
    const fd = fs.openSync(file, 'r');
    try {
      const plan = planDescriptions(fd, BASE, undefined, () => undefined)!;
      // Edited in place: the second line grows, as an editor saving over it would make it.
      fs.writeFileSync(file, `${X} ${P} "a" .\n${X} ${P} "xyz" .\n`);
      const second = placedPieces(fd, plan, file);
      assert.throws(
        () => [...second],
        (error: unknown) =>
          error instanceof LoadError &&
          error.line === 2 &&
          /changed while it was read/.test(error.message),
      );
    } finally {
      fs.closeSync(fd);
    }
  });
});

describe('placedNTriples: what the store parser reads instead', () => {
  it('refuses bytes that are not UTF-8, with their line (not read as replacement characters)', async () => {
    const file = path.join(dir, 'latin1.nt');
    fs.writeFileSync(
      file,
      Buffer.concat([
        Buffer.from(
          `${X} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Organization> .\n`,
        ),
        Buffer.from(`${X} ${P} "K\xf6ln" .\n`, 'latin1'),
      ]),
    );
    assert.equal(vouched(file), false);
    await assert.rejects(loadSources([file], { baseIri: BASE }), (error: Error) => {
      assert.match(error.message, /latin1\.nt:2:\d+: /);
      return true;
    });
  });
});

describe('splitTriple: the lines this reading vouches for', () => {
  const rows: [string, string][] = [
    [`${X} ${P} "a" .`, 'triple'],
    [`${X} ${P} "a"^^<http://www.w3.org/2001/XMLSchema#string> .`, 'triple'],
    ['   # a comment', 'nothing'],
    ['', 'nothing'],
    [`<resource/organisations/DE-X> ${P} "relative" .`, 'unknown'],
    [`<${BASE}/resource/organisations/DE-\\u0058> ${P} "an escape" .`, 'unknown'],
    [`${X} ${P} "no dot"`, 'unknown'],
    [`${X} ${P} "unterminated .`, 'unknown'],
    [`${X} ${P} "a" <http://example.org/g> .`, 'unknown'],
    [`"literal" ${P} "a" .`, 'unknown'],
    [`${X} ${P} "a" . trailing`, 'unknown'],
  ];
  for (const [line, kind] of rows)
    it(`${JSON.stringify(line)}: ${kind}`, () => {
      const split = splitTriple(line);
      assert.equal(typeof split === 'string' ? split : 'triple', kind);
    });
});
