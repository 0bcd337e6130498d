// The one rule for URLs (docs/http-contract.md, "URLs") against a server process whose BASE_IRI is
// not the host asked: every Link and Location, and every URL a body tells a client to fetch, is
// on the origin asked, and following them works; identifiers stay under BASE_IRI. The Memento
// checks are those of LANL's memento-validator, header by header; rdflib reads a JSON-LD document
// fetching its context from the origin asked.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { generateSnapshot } from '../../cli/generate';
import { parseTurtle, sameGraph, tempDir } from '../support';
import { parseLinkFormat, type ParsedLink } from '../support/history';
import { startServerProcess, type ServerProcess } from '../support/serverProcess';
import { skipWithout } from '../support/missing';

const BASE_IRI = 'https://example.org';
const LINK_FORMAT = 'application/link-format';

const linksOf = (header: string | null): ParsedLink[] => parseLinkFormat(header ?? '');
const withRel = (links: readonly ParsedLink[], rel: string) =>
  links.filter((l) => l.rels.includes(rel));
const get = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, { redirect: 'manual', headers });

/** Debian's Python, which python3-rdflib installs into (another python3 may come first on PATH). */
const PYTHON = '/usr/bin/python3';
/** Whether rdflib is installed (a Debian package, .ci/packages); CI fails rather than skips. */
const rdflibInstalled = () => spawnSync(PYTHON, ['-c', 'import rdflib']).status === 0;

/** The answer to `url` once it is 200: search and the dumps are made after the server is ready. */
async function once200(url: string): Promise<Response> {
  for (let i = 0; i < 300; i++) {
    const res = await get(url);
    if (res.status === 200) return res;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer 200`);
}

/** A GET with a Host of the test's choosing (fetch sends the URL's). */
function withHost(port: number, target: string, host: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: target, headers: { Host: host }, setHost: false },
      (res) => {
        res.resume();
        resolve(res);
      },
    );
    req.on('error', reject);
  });
}

describe('URLs on the origin asked while BASE_IRI is elsewhere (a server process)', function () {
  this.timeout(180_000);
  let server: ServerProcess;
  let origin: string;
  let isil: string;
  before(async () => {
    const file = path.join(tempDir(), 'example-org.nq');
    fs.writeFileSync(file, [...generateSnapshot({ count: 20, seed: 7, base: BASE_IRI })].join(''));
    server = await startServerProcess({ env: { DATASET: file, BASE_IRI, DUMPS_DIR: tempDir() } });
    origin = `http://127.0.0.1:${server.port}`;
    const index = await (await get(`${origin}/sitemap.xml`)).text();
    const first = /<loc>([^<]+)<\/loc>/.exec(index)![1]!;
    assert.ok(first.startsWith(`${origin}/`), first);
    const pages = await (await get(first)).text();
    isil = /<loc>[^<]*\/isil\/([^<]+)<\/loc>/.exec(pages)![1]!;
  });
  after(() => server?.child.kill());

  describe('a current document', () => {
    let res: Response;
    before(async () => {
      res = await get(`${origin}/data/organisations/${isil}.ttl`);
    });
    it('every URL of its Link is on the origin asked, but the licence and the profile', () => {
      const links = linksOf(res.headers.get('link'));
      // A profile is named by its IRI, the one Content-Profile says, whatever the origin asked.
      const profile = links.find((l) => l.rels.includes('profile'));
      assert.equal(profile?.target, `${BASE_IRI}/profiles/zdb`);
      assert.equal(res.headers.get('content-profile'), `<${BASE_IRI}/profiles/zdb>`);
      const targets = links
        .filter((l) => !l.rels.includes('license') && !l.rels.includes('profile'))
        .map((l) => l.target);
      assert.ok(targets.length >= 6);
      for (const target of targets) assert.ok(target.startsWith(`${origin}/`), target);
    });
    it('names the institution under BASE_IRI', async () => {
      const subjects = parseTurtle(await res.text()).map((q) => q.subject.value);
      assert.ok(subjects.includes(`${BASE_IRI}/resource/organisations/${isil}`));
    });
    it('the 303 of its resource is on the origin asked', async () => {
      const seeOther = await get(`${origin}/resource/organisations/${isil}`, {
        Accept: 'text/turtle',
      });
      assert.equal(seeOther.status, 303);
      assert.equal(seeOther.headers.get('location'), `${origin}/data/organisations/${isil}.ttl`);
    });
  });

  describe('Memento, as memento-validator checks it', () => {
    let original: string;
    let gate: Response;
    let memento: Response;
    let mementoUrl: string;
    before(async () => {
      original = `${origin}/data/organisations/${isil}.ttl`;
      gate = await get(`${origin}/timegate/data/organisations/${isil}.ttl`, {
        'Accept-Datetime': 'Tue, 20 Mar 2001 20:35:00 GMT',
      });
      mementoUrl = gate.headers.get('location')!;
      memento = await get(mementoUrl);
    });
    it('the TimeGate: 302, Location a memento on the origin asked', () => {
      assert.equal(gate.status, 302);
      assert.match(mementoUrl, new RegExp(`^${origin}/memento/\\d{14}/data/organisations/`));
    });
    it('the TimeGate: Vary accept-datetime', () =>
      assert.equal(gate.headers.get('vary'), 'accept-datetime'));
    it('the TimeGate: Link to the original, the TimeMap and the memento it chose', () => {
      const links = linksOf(gate.headers.get('link'));
      assert.deepEqual(
        withRel(links, 'original').map((l) => l.target),
        [original],
      );
      const [timemap] = withRel(links, 'timemap');
      assert.equal(timemap?.target, `${origin}/timemap/data/organisations/${isil}.ttl`);
      assert.equal(timemap?.attributes.type, LINK_FORMAT);
      assert.deepEqual(
        withRel(links, 'memento').map((l) => l.target),
        [mementoUrl],
      );
    });
    it('the memento: 200 with Memento-Datetime', () => {
      assert.equal(memento.status, 200);
      assert.ok(memento.headers.get('memento-datetime'));
    });
    it('the memento: Link names itself as rel="memento", with its Memento-Datetime', () => {
      const self = withRel(linksOf(memento.headers.get('link')), 'memento');
      assert.deepEqual(
        self.map((l) => [l.target, l.rels.join(' '), l.attributes.datetime]),
        [[mementoUrl, 'first last memento', memento.headers.get('memento-datetime')]],
      );
    });
    it('the memento: its original, TimeGate and TimeMap answer where its Link says', async () => {
      const links = linksOf(memento.headers.get('link'));
      const at = (rel: string) => withRel(links, rel)[0]!.target;
      assert.equal(at('original'), original);
      assert.equal((await get(at('original'))).status, 200);
      assert.equal((await get(at('timegate'))).status, 302);
      const timemap = await get(at('timemap'));
      assert.equal(timemap.status, 200);
      assert.match(timemap.headers.get('content-type')!, /^application\/link-format/);
    });
    it('the TimeMap: every URI on the origin asked, its memento the one the TimeGate chose', async () => {
      const links = parseLinkFormat(
        await (await get(`${origin}/timemap/data/organisations/${isil}.ttl`)).text(),
      );
      for (const link of links) assert.ok(link.target.startsWith(`${origin}/`), link.target);
      assert.deepEqual(
        withRel(links, 'memento').map((l) => l.target),
        [mementoUrl],
      );
    });
    it('the JSON TimeMap: json_format and link_format are two URLs, each answering its format', async () => {
      const json = (await (
        await get(`${origin}/timemap/data/organisations/${isil}.ttl`, {
          Accept: 'application/json',
        })
      ).json()) as { timemap_uri: { link_format: string; json_format: string } };
      const { link_format: link, json_format: own } = json.timemap_uri;
      assert.notEqual(link, own);
      assert.match((await get(link)).headers.get('content-type')!, /^application\/link-format/);
      assert.deepEqual(await (await get(own)).json(), json);
    });
    it('a memento of a time that is none: 404 linking the TimeMap on the origin asked', async () => {
      const none = await get(`${origin}/memento/20010320203500/data/organisations/${isil}.ttl`);
      assert.equal(none.status, 404);
      assert.equal(
        withRel(linksOf(none.headers.get('link')), 'timemap')[0]?.target,
        `${origin}/timemap/data/organisations/${isil}.ttl`,
      );
    });
  });

  describe('what bodies tell a client to fetch', () => {
    it('JSON-LD names its context on the origin asked, which rdflib fetches and reads', async function () {
      const url = `${origin}/data/organisations/${isil}.jsonld`;
      const document = (await (await get(url)).json()) as { '@context': string };
      assert.equal(document['@context'], `${origin}/context.jsonld`);
      if (!rdflibInstalled())
        skipWithout(this, 'python3-rdflib', 'sudo bash .ci/packages installs it');
      const { stdout } = await promisify(execFile)(PYTHON, [
        '-c',
        'import sys, rdflib; g = rdflib.Graph(); g.parse(sys.argv[1], format="json-ld"); print(g.serialize(format="nt"))',
        url,
      ]);
      const turtle = await (await get(`${origin}/data/organisations/${isil}.ttl`)).text();
      assert.ok(sameGraph(parseTurtle(stdout, 'application/n-triples'), parseTurtle(turtle)));
    });
    it('the reconciliation manifest: identifiers under BASE_IRI, every service URL on the origin asked', async () => {
      const manifest = (await (await get(`${origin}/reconcile`)).json()) as {
        identifierSpace: string;
        view: { url: string };
        preview: { url: string };
        suggest: Record<string, { service_url: string }>;
        extend: { propose_properties: { service_url: string } };
      };
      assert.equal(manifest.identifierSpace, `${BASE_IRI}/resource/organisations/`);
      assert.equal(manifest.view.url, `${origin}/isil/{{id}}`);
      assert.equal(manifest.preview.url, `${origin}/reconcile/preview?id={{id}}`);
      for (const { service_url } of Object.values(manifest.suggest))
        assert.equal(service_url, `${origin}/reconcile`);
      assert.equal(manifest.extend.propose_properties.service_url, `${origin}/reconcile`);
    });
    it('OAI-PMH: its baseURL is on the origin asked', async () => {
      const identify = await (await get(`${origin}/oai?verb=Identify`)).text();
      assert.match(identify, new RegExp(`<baseURL>${origin}/oai</baseURL>`));
    });
    it('VoID: the dataset under BASE_IRI, its lookup on the origin asked', async () => {
      const text = await (await get(`${origin}/.well-known/void`)).text();
      const quads = parseTurtle(text);
      const lookup = quads.find((q) => q.predicate.value.endsWith('#uriLookupEndpoint'));
      assert.equal(lookup?.subject.value, `${BASE_IRI}/.well-known/void#dataset`);
      assert.equal(lookup?.object.value, `${origin}/search?q=`);
    });
    it('search JSON and its JSON Lines export: pages on the origin asked, URIs under BASE_IRI', async () => {
      const json = (await (await once200(`${origin}/search?q=${isil}&format=json`)).json()) as {
        hits: { uri: string; page: string }[];
      };
      assert.deepEqual(
        [json.hits[0]?.uri, json.hits[0]?.page],
        [`${BASE_IRI}/resource/organisations/${isil}`, `${origin}/isil/${isil}`],
      );
      const lines = await (
        await once200(`${origin}/search?q=${isil}&format=jsonl&fields=uri,page`)
      ).text();
      assert.deepEqual(JSON.parse(lines.split('\n')[0]!), {
        uri: `${BASE_IRI}/resource/organisations/${isil}`,
        page: `${origin}/isil/${isil}`,
      });
    });
    it('/dumps/ JSON and VoID name each dump on the origin asked, and it answers there', async () => {
      let files: { url: string; period?: string }[] = [];
      for (let i = 0; i < 300 && files.length === 0; i++) {
        const listing = (await (
          await get(`${origin}/dumps/`, { Accept: 'application/json' })
        ).json()) as { dumps: { files: { url: string; period?: string }[] }[] };
        files = listing.dumps[0]?.files ?? [];
        if (files.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(files.length > 0);
      for (const { url } of files) {
        assert.ok(url.startsWith(`${origin}/dumps/`), url);
        assert.equal((await get(url, { 'Accept-Encoding': 'identity' })).status, 200);
      }
      const quads = parseTurtle(await (await get(`${origin}/.well-known/void`)).text());
      const named = (suffix: string) =>
        quads.filter((q) => q.predicate.value.endsWith(suffix)).map((q) => q.object.value);
      // The change files are named beside the dumps (rdfs:seeAlso), not as dumps of the data.
      assert.deepEqual(
        named('#dataDump').sort(),
        files
          .filter((f) => !f.period)
          .map((f) => f.url)
          .sort(),
      );
      for (const f of files.filter((f) => f.period)) assert.ok(named('#seeAlso').includes(f.url));
    });
    it('robots.txt: the sitemap on the origin asked', async () =>
      assert.match(
        await (await get(`${origin}/robots.txt`)).text(),
        new RegExp(`^Sitemap: ${origin}/sitemap.xml$`, 'm'),
      ));
  });

  describe('a Host header of the client’s', () => {
    it('another host: the URLs on it', async () => {
      const res = await withHost(
        server.port,
        `/resource/organisations/${isil}`,
        'staging.test:8443',
      );
      assert.equal(res.statusCode, 303);
      assert.equal(
        res.headers.location,
        `http://staging.test:8443/data/organisations/${isil}.html`,
      );
    });
    it('a cached document asked on another host does not answer the origin asked', async () => {
      const target = `/data/organisations/${isil}.nt`;
      const elsewhere = await withHost(server.port, target, 'cache.test');
      assert.match(String(elsewhere.headers.link), /<http:\/\/cache\.test\/timegate\//);
      const here = await get(`${origin}${target}`);
      assert.match(here.headers.get('link')!, new RegExp(`<${origin}/timegate/`));
    });
    it('a host no URL carries as it is: the URLs on BASE_IRI’s origin, nothing crashes', async () => {
      const res = await withHost(server.port, `/resource/organisations/${isil}`, "a'b");
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, `${BASE_IRI}/data/organisations/${isil}.html`);
      assert.equal((await get(`${origin}/readyz`)).status, 200);
    });
  });
});
