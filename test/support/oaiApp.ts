// The OAI-PMH tests' registry and client: the history fixture with an institution RDF/XML cannot
// carry, and requests whose answers are validated against the schemas before they are read.
import assert from 'node:assert/strict';
import request from 'supertest';
import type { Express } from 'express';
import { HISTORY_BASE, registryVersions, writeHistory } from './history';
import { oaiSchemaErrors } from './oaiSchema';
import { readOai, type OaiAnswer } from './oaiXml';

/** More institutions than a page of records holds, so that lists take tokens. */
export const COUNT = 130;
export const REPOSITORY = 'ld.zdb-services.de';
export const id = (isil: string) => `oai:${REPOSITORY}:${isil}`;
export const stamp = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
export const iri = (isil: string) => `${HISTORY_BASE}/resource/organisations/${isil}`;

/** An institution RDF/XML cannot carry (a predicate with no XML local name), in every version. */
export const ODD = 'DE-Odd1';
export const ODD_BLOCK =
  `<${iri(ODD)}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Organization> .\n` +
  `<${iri(ODD)}> <http://xmlns.com/foaf/0.1/name> "Sonderbibliothek (synthetisch)" .\n` +
  `<${iri(ODD)}> <http://example.org/ns/123> "no local name" .\n`;

/** The ISILs a version's N-Triples describe, in the order of their blocks. */
export const isilsOf = (text: string): string[] => [
  ...new Set(
    [...text.matchAll(/^<https:\/\/ld\.zdb-services\.de\/resource\/organisations\/([^>]+)>/gm)].map(
      (m) => m[1]!,
    ),
  ),
];

/** The answer to `query` (GET), checked to be valid OAI-PMH before it is read. */
export async function ask(app: Express, query: string): Promise<OaiAnswer & { xml: string }> {
  const res = await request(app).get(`/oai?${query}`);
  assert.equal(res.status, 200, res.text);
  assert.match(res.headers['content-type']!, /^text\/xml;charset=utf-8$/);
  const xml = res.text;
  assert.equal(oaiSchemaErrors(xml), '', `${query}: ${xml.slice(0, 600)}`);
  return { ...readOai(xml), xml };
}

/** Every header of a list, through every token, each answer checked. */
export async function harvest(app: Express, query: string) {
  const pages: OaiAnswer[] = [];
  let answer = await ask(app, query);
  pages.push(answer);
  const verb = /verb=(\w+)/.exec(query)![1]!;
  while (answer.token?.value) {
    answer = await ask(
      app,
      `verb=${verb}&resumptionToken=${encodeURIComponent(answer.token.value)}`,
    );
    pages.push(answer);
  }
  return {
    pages,
    headers: pages.flatMap((p) => p.headers),
    metadata: pages.flatMap((p) => p.metadata),
  };
}

/** The registry's five versions, each with the odd institution, written; and its ISILs. */
export async function oaiFixture() {
  const versions = registryVersions(COUNT).map((v) => v + ODD_BLOCK);
  const fixture = await writeHistory(versions);
  const base = isilsOf(versions[0]!).filter((i) => i !== ODD);
  return {
    fixture,
    /** The first version's institutions, in order (registryVersions says what happens to each). */
    base,
    /** The one created by the second version. */
    extra: isilsOf(versions[1]!).find((i) => !base.includes(i) && i !== ODD)!,
    /** Served at the end, and deleted (by the second version, never back). */
    live: isilsOf(versions[4]!),
    deleted: base[4]!,
  };
}
