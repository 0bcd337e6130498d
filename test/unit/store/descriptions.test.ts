// Which triples make up each description, and the graph each is placed in (src/store/descriptions.ts).
import assert from 'node:assert/strict';
import { Parser, type Quad } from 'n3';
import { isomorphic } from 'rdf-isomorphic';
import { descriptionIriOf } from '../../../src/rdf/iris';
import { descriptionQuads, MAX_BLANK_NODE_DEPTH } from '../../../src/store/descriptions';

const BASE = 'https://ld.zdb-services.de';
const X = `<${BASE}/resource/organisations/DE-X>`;
const Y = `<${BASE}/resource/organisations/DE-Y>`;
const GX = `<${BASE}/data/organisations/DE-X>`;
const GY = `<${BASE}/data/organisations/DE-Y>`;
const P = '<http://example.org/p>';
const URL = '<http://www.w3.org/2006/vcard/ns#url>';
const EMAIL = '<http://www.w3.org/2006/vcard/ns#email>';
const DESCRIBEDBY = '<http://www.w3.org/2007/05/powder-s#describedby>';
const HOMEPAGE = '<http://xmlns.com/foaf/0.1/homepage>';

function quads(nquads: string): Quad[] {
  return new Parser({ format: 'application/n-quads' }).parse(nquads);
}

/** Whether `ntriples` placed gives the dataset `expected` (N-Quads), blank nodes matched. */
function places(ntriples: string, expected: string): void {
  const placed = descriptionQuads(ntriples, BASE);
  assert.ok(isomorphic(quads(placed), quads(expected)), placed);
}

describe('descriptionIriOf: the graph of an institution IRI', () => {
  const rows: [string, string | undefined][] = [
    [`${BASE}/resource/organisations/DE-1a`, `${BASE}/data/organisations/DE-1a`],
    [`${BASE}/resource/organisations/GB-LO/N38`, `${BASE}/data/organisations/GB-LO/N38`],
    [
      'http://example.org/resource/organisations/DE-1',
      'http://example.org/data/organisations/DE-1',
    ],
    [`${BASE}/resource/organisations/`, undefined],
    [`${BASE}/data/organisations/DE-1a`, undefined],
    ['https://example.org/DE-1a', undefined],
  ];
  for (const [iri, expected] of rows)
    it(`${iri} → ${expected}`, () => assert.equal(descriptionIriOf(iri), expected));
});

describe('descriptionQuads: each description in its graph', () => {
  it('puts an institution its own triples in its graph', () =>
    places(
      `${X} ${P} "a" .\n${X} ${P} <http://example.org/o> .\n`,
      `${X} ${P} "a" ${GX} .\n${X} ${P} <http://example.org/o> ${GX} .\n`,
    ));

  it('keeps two institutions apart', () =>
    places(`${X} ${P} "x" .\n${Y} ${P} "y" .\n`, `${X} ${P} "x" ${GX} .\n${Y} ${P} "y" ${GY} .\n`));

  it('follows blank nodes, nested', () =>
    places(
      `${X} ${P} _:a .\n_:a ${P} _:b .\n_:b ${P} "deep" .\n_:a ${P} "1" .\n`,
      `${X} ${P} _:a ${GX} .\n_:a ${P} _:b ${GX} .\n_:b ${P} "deep" ${GX} .\n_:a ${P} "1" ${GX} .\n`,
    ));

  it(`follows a chain of ${MAX_BLANK_NODE_DEPTH} blank nodes, and no further`, () => {
    const lines = [`${X} ${P} _:b1 .`];
    for (let level = 1; level <= MAX_BLANK_NODE_DEPTH; level++)
      lines.push(`_:b${level} ${P} _:b${level + 1} .`);
    lines.push(`_:b${MAX_BLANK_NODE_DEPTH + 1} ${P} "too deep" .`);
    const placed = lines.slice(0, -1).map((line) => `${line.slice(0, -2)} ${GX} .`);
    places(`${lines.join('\n')}\n`, `${[...placed, lines.at(-1)!].join('\n')}\n`);
  });

  it('ends on a cycle of blank nodes', () =>
    places(
      `${X} ${P} _:a .\n_:a ${P} _:b .\n_:b ${P} _:a .\n`,
      `${X} ${P} _:a ${GX} .\n_:a ${P} _:b ${GX} .\n_:b ${P} _:a ${GX} .\n`,
    ));

  it('follows describedby, v:url and v:email to named nodes, one level only', () =>
    places(
      `${X} ${DESCRIBEDBY} ${GX} .\n${GX} ${P} "modified" .\n` +
        `${X} ${URL} <https://example.org/opac> .\n<https://example.org/opac> ${P} "opac" .\n` +
        `<https://example.org/opac> ${P} <https://example.org/next> .\n<https://example.org/next> ${P} "not followed" .\n` +
        `${X} ${EMAIL} <mailto:a@example.org> .\n<mailto:a@example.org> ${P} "mail" .\n`,
      `${X} ${DESCRIBEDBY} ${GX} ${GX} .\n${GX} ${P} "modified" ${GX} .\n` +
        `${X} ${URL} <https://example.org/opac> ${GX} .\n<https://example.org/opac> ${P} "opac" ${GX} .\n` +
        `<https://example.org/opac> ${P} <https://example.org/next> ${GX} .\n<https://example.org/next> ${P} "not followed" .\n` +
        `${X} ${EMAIL} <mailto:a@example.org> ${GX} .\n<mailto:a@example.org> ${P} "mail" ${GX} .\n`,
    ));

  it('does not follow other links to named nodes (foaf:homepage)', () =>
    places(
      `${X} ${HOMEPAGE} <https://example.org/> .\n<https://example.org/> ${P} "not part of it" .\n`,
      `${X} ${HOMEPAGE} <https://example.org/> ${GX} .\n<https://example.org/> ${P} "not part of it" .\n`,
    ));

  it('puts a node two institutions link to in both graphs', () =>
    places(
      `${X} ${URL} <https://example.org/shared> .\n${Y} ${URL} <https://example.org/shared> .\n` +
        `<https://example.org/shared> ${P} "shared" .\n`,
      `${X} ${URL} <https://example.org/shared> ${GX} .\n${Y} ${URL} <https://example.org/shared> ${GY} .\n` +
        `<https://example.org/shared> ${P} "shared" ${GX} .\n<https://example.org/shared> ${P} "shared" ${GY} .\n`,
    ));

  it('leaves in the default graph what belongs to no description', () =>
    places(
      `<http://example.org/s> ${P} "o" .\n_:lone ${P} "blank" .\n` +
        `<http://other.example/resource/organisations/DE-X> ${P} "another base" .\n`,
      `<http://example.org/s> ${P} "o" .\n_:lone ${P} "blank" .\n` +
        `<http://other.example/resource/organisations/DE-X> ${P} "another base" .\n`,
    ));

  it('keeps an IRI with a space (a lenient load let it in) and a literal that reads like a line end', () => {
    const text = `${X} <http://example.org/p q> "a .\\n_:b" .\n${X} ${P} <http://example.org/a b> .\n`;
    const placed = descriptionQuads(text, BASE);
    assert.equal(
      placed,
      `${X} <http://example.org/p q> "a .\\n_:b" ${GX} .\n${X} ${P} <http://example.org/a b> ${GX} .\n`,
    );
  });

  it('gives nothing for nothing', () => assert.equal(descriptionQuads('', BASE), ''));
});
