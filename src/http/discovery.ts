// Discovery for machines: a VoID description of the dataset at `/.well-known/void`
// (RFC 8615; VoID §7.2), `robots.txt`, and a sitemap (sitemaps.org 0.9: an index, then files of at
// most 50,000 URLs with `lastmod`). Each is made from the dataset version served, once per version,
// and carries its ETag.
import type { Request, RequestHandler, Response } from 'express';
import { Writer, DataFactory, type NamedNode, type Quad } from 'n3';
import { RESOURCE_PATH } from '../rdf/iris';
import { LDES } from '../documents/feedStatements';
import { FEED_PATH } from '../rdf/iris';
import { CC0, GND, PREFIXES, WIKIDATA } from '../rdf/namespaces';
import type { Dataset, Institution } from '../store/dataset';
import type { DumpFile } from '../documents/versionDumps';
import { escapeHtml } from '../pages/escape';
import { cacheControl, currentDocuments, DATASET_VERSION, pathBelow, type RouteDeps } from './deps';
import { notFound } from './errors';
import { institutionPage } from '../pages/pageUrl';
import { made, sendMade, type Made } from './respond';
import { DUMPS_PATH, labelOf } from './dumps';
import { RECONCILE_PATH } from '../rdf/iris';
import { SEARCH_PATH } from '../pages/searchPage';
import { OAI_PATH, OAI_PMH_SPECIFICATION } from './oai';
import { SPARQL_PATH } from './sparql/endpoint';
import { publicOrigin } from './publicOrigin';

export const VOID_PATH = '/.well-known/void';
export const SITEMAP_PATH = '/sitemap.xml';
/** Sitemap files: `/sitemaps/1.xml`, … */
export const SITEMAPS_PATH = '/sitemaps/';
/** URLs in one sitemap file at most (sitemaps.org). */
export const SITEMAP_SIZE = 50_000;

const { namedNode: iri, literal, quad } = DataFactory;
const VOID = 'http://rdfs.org/ns/void#';
const { dcterms, foaf, rdf, xsd } = PREFIXES;

/** One answer per version, made when first asked for. */
class PerVersion<T> {
  private key: string | undefined;
  private value: T | undefined;
  /** `origin`: the one its URLs are on (publicOrigin); another origin makes it again. */
  get(dataset: Dataset, origin: string, make: () => T): T {
    const key = `${dataset.version}\u0000${origin}`;
    if (this.key !== key) {
      this.value = make();
      this.key = key;
    }
    return this.value!;
  }
}

function send(
  req: Request,
  res: Response,
  deps: RouteDeps,
  dataset: Dataset,
  type: string,
  answer: Made,
): void {
  sendMade(
    req,
    res,
    answer,
    {
      'Content-Type': type,
      'Cache-Control': cacheControl(deps.config),
      [DATASET_VERSION]: dataset.version,
    },
    dataset.loadedAt,
  );
}

/**
 * The files of the newest set of dumps (the served version's once they are made, the version
 * before's until then), which VoID names as `void:dataDump`s; none while there are none.
 */
function newestDumps(
  deps: RouteDeps,
  origin: string,
): { key: string; urls: string[]; changes: ChangeFileLink[] } {
  const newest = deps.service.dumps.list()[0];
  if (!newest) return { key: '', urls: [], changes: [] };
  const url = (f: DumpFile) => `${origin}${DUMPS_PATH}${f.name}`;
  return {
    key: `${newest.version} ${newest.created}`,
    urls: newest.files.filter((f) => !f.period).map(url),
    changes: newest.files
      .filter((f) => f.period)
      .map((f) => ({ url: url(f), mediaType: f.mediaType, label: labelOf(f, 'en') })),
  };
}

/** A change file, which is no dump of the data: VoID names it `rdfs:seeAlso`, with its format. */
interface ChangeFileLink {
  readonly url: string;
  readonly mediaType: string;
  readonly label: string;
}

/** The dumps as `void:dataDump`s, and the change files beside them. */
function dumpQuads(ds: NamedNode, { dumps, changes = [] }: Fetched): Quad[] {
  return [
    ...dumps.map((url) => quad(ds, iri(`${VOID}dataDump`), iri(url))),
    ...changeFileQuads(ds, changes),
  ];
}

function changeFileQuads(ds: NamedNode, changes: readonly ChangeFileLink[]): Quad[] {
  return changes.flatMap(({ url, mediaType, label }) => [
    quad(ds, iri(`${PREFIXES.rdfs}seeAlso`), iri(url)),
    quad(iri(url), iri(`${dcterms}format`), literal(mediaType)),
    quad(iri(url), iri(`${PREFIXES.rdfs}label`), literal(label, 'en')),
  ]);
}

/** The formats the documents are served in, as W3C's format IRIs name them. */
const FEATURES = ['Turtle', 'RDF_XML', 'JSON-LD', 'N-Triples', 'N3', 'TriG', 'N-Quads'];

/**
 * The ways to follow the data's changes, which VoID has no term for (`void:feature` names
 * formats): each a `rdfs:seeAlso` of the dataset, typed by what it speaks. The change feed's
 * stream is an LDES, whose changes make each version from the one before; the OAI-PMH provider
 * is named by its protocol.
 */
function harvestingQuads(origin: string, ds: NamedNode): Quad[] {
  const stream = iri(`${origin}${FEED_PATH}#stream`);
  const oai = iri(`${origin}${OAI_PATH}`);
  return [
    quad(ds, iri(`${PREFIXES.rdfs}seeAlso`), stream),
    quad(stream, iri(`${rdf}type`), iri(`${LDES}EventStream`)),
    quad(ds, iri(`${PREFIXES.rdfs}seeAlso`), oai),
    quad(oai, iri(`${dcterms}conformsTo`), iri(OAI_PMH_SPECIFICATION)),
  ];
}

/** What VoID names that a client fetches: on `origin`, the one asked (publicOrigin). */
interface Fetched {
  readonly origin: string;
  /** The URLs of the data dumps. */
  readonly dumps: readonly string[];
  /** The change files beside them. */
  readonly changes?: readonly ChangeFileLink[];
}

/**
 * The VoID description of `dataset`, in Turtle: the dataset and what it holds named under
 * BASE_IRI, what a client fetches (its dumps, its lookup, its feed) on the origin asked.
 */
export function voidTurtle(deps: RouteDeps, dataset: Dataset, fetched: Fetched): string {
  const { origin } = fetched;
  const base = deps.config.baseIri;
  const doc = iri(`${base}${VOID_PATH}`);
  const ds = iri(`${base}${VOID_PATH}#dataset`);
  const example = dataset.institutions().next().value as Institution | undefined;
  const quads = [
    quad(doc, iri(`${rdf}type`), iri(`${VOID}DatasetDescription`)),
    quad(
      doc,
      iri(`${dcterms}title`),
      literal('VoID description of the ISIL Linked Data service', 'en'),
    ),
    quad(doc, iri(`${foaf}primaryTopic`), ds),
    quad(ds, iri(`${rdf}type`), iri(`${VOID}Dataset`)),
    quad(ds, iri(`${dcterms}title`), literal('ISIL Linked Data', 'en')),
    quad(ds, iri(`${dcterms}title`), literal('ISIL Linked Data', 'de')),
    quad(
      ds,
      iri(`${dcterms}description`),
      literal(
        'Address data of libraries, archives and museums, identified by ISIL (ISO 15511), in FOAF and vCard.',
        'en',
      ),
    ),
    quad(
      ds,
      iri(`${dcterms}description`),
      literal(
        'Adressdaten von Bibliotheken, Archiven und Museen, identifiziert durch ISIL (ISO 15511), in FOAF und vCard.',
        'de',
      ),
    ),
    quad(ds, iri(`${dcterms}license`), iri(CC0)),
    quad(
      ds,
      iri(`${dcterms}modified`),
      literal(dataset.loadedAt.toISOString(), iri(`${xsd}dateTime`)),
    ),
    quad(ds, iri(`${dcterms}hasVersion`), literal(dataset.version)),
    quad(ds, iri(`${VOID}triples`), literal(String(dataset.tripleCount), iri(`${xsd}integer`))),
    quad(
      ds,
      iri(`${VOID}entities`),
      literal(String(dataset.institutionCount), iri(`${xsd}integer`)),
    ),
    quad(ds, iri(`${VOID}uriSpace`), literal(`${base}${RESOURCE_PATH}`)),
    ...FEATURES.map((f) =>
      quad(ds, iri(`${VOID}feature`), iri(`http://www.w3.org/ns/formats/${f}`)),
    ),
    quad(ds, iri(`${VOID}rootResource`), iri(`${base}/`)),
    quad(ds, iri(`${VOID}uriLookupEndpoint`), iri(`${origin}/search?q=`)),
    ...dumpQuads(ds, fetched),
    ...harvestingQuads(origin, ds),
    ...['foaf', 'v', 'dcterms', 'dc', 'geo', 'schema', 'owl', 'gbv'].map((p) =>
      quad(ds, iri(`${VOID}vocabulary`), iri(PREFIXES[p as keyof typeof PREFIXES])),
    ),
    ...(example ? [quad(ds, iri(`${VOID}exampleResource`), iri(example.iri))] : []),
    quad(ds, iri(`${VOID}classPartition`), iri(`${base}${VOID_PATH}#organisations`)),
    quad(iri(`${base}${VOID_PATH}#organisations`), iri(`${VOID}class`), iri(`${foaf}Organization`)),
    quad(
      iri(`${base}${VOID_PATH}#organisations`),
      iri(`${VOID}entities`),
      literal(String(dataset.institutionCount), iri(`${xsd}integer`)),
    ),
    ...linksetQuads(base, ds, dataset),
    // No void:sparqlEndpoint: the endpoint is the staff's, behind a login (docs/sparql.md), and
    // VoID names an endpoint for anyone to query.
  ];
  const writer = new Writer({ prefixes: { void: VOID, dcterms, foaf, xsd, rdf } });
  writer.addQuads(quads);
  let text = '';
  writer.end((error, result) => {
    if (error) throw error;
    text = result;
  });
  return text;
}

/** The datasets the links point into: each linkset names one as its objects' target. */
const LINK_TARGETS = [
  {
    key: 'wikidata',
    title: 'Wikidata',
    homepage: 'https://www.wikidata.org/',
    uriSpace: WIKIDATA,
  },
  {
    key: 'gnd',
    title: 'Gemeinsame Normdatei (GND)',
    homepage: 'https://www.dnb.de/gnd',
    uriSpace: GND,
  },
] as const;

/**
 * The links to the same institutions elsewhere (src/load/place/wikidataSets.ts), kept in a graph of their own
 * and served in the documents as `owl:sameAs`: the graph as a subset of the dataset (from
 * Wikidata, its date, its counts), and within it one VoID linkset per target, as VoID wants a
 * linkset to link two datasets: to Wikidata's items and to the GND's entities.
 */
function linksetQuads(base: string, ds: ReturnType<typeof iri>, dataset: Dataset) {
  const links = dataset.links;
  if (!links) return [];
  const here = (fragment: string) => iri(`${base}${VOID_PATH}#${fragment}`);
  const all = here('links');
  const integer = (n: number) => literal(String(n), iri(`${xsd}integer`));
  const quads = [
    quad(ds, iri(`${VOID}subset`), all),
    quad(all, iri(`${rdf}type`), iri(`${VOID}Dataset`)),
    quad(all, iri(`${dcterms}title`), literal('Links to Wikidata and the GND', 'en')),
    quad(all, iri(`${VOID}triples`), integer(links.links)),
    quad(all, iri(`${VOID}distinctSubjects`), integer(links.institutions)),
    quad(all, iri(`${dcterms}source`), iri('http://www.wikidata.org/')),
    quad(all, iri(`${dcterms}license`), iri(CC0)),
    quad(
      all,
      iri(`${dcterms}modified`),
      literal(links.modified.toISOString(), iri(`${xsd}dateTime`)),
    ),
  ];
  for (const target of LINK_TARGETS) {
    const count = links[target.key];
    if (count === 0) continue;
    const set = here(`links-${target.key}`);
    const other = here(target.key);
    quads.push(
      quad(all, iri(`${VOID}subset`), set),
      quad(set, iri(`${rdf}type`), iri(`${VOID}Linkset`)),
      quad(set, iri(`${dcterms}title`), literal(`Links to ${target.title}`, 'en')),
      quad(set, iri(`${VOID}subjectsTarget`), ds),
      quad(set, iri(`${VOID}objectsTarget`), other),
      quad(set, iri(`${VOID}linkPredicate`), iri(`${PREFIXES.owl}sameAs`)),
      quad(set, iri(`${VOID}triples`), integer(count)),
      quad(other, iri(`${rdf}type`), iri(`${VOID}Dataset`)),
      quad(other, iri(`${dcterms}title`), literal(target.title)),
      quad(other, iri(`${foaf}homepage`), iri(target.homepage)),
      quad(other, iri(`${VOID}uriSpace`), literal(target.uriSpace)),
    );
  }
  return quads;
}

/** The sitemap's page URL of an institution: its page here, else its URI (which 303s to one). */
function pageUrl(deps: RouteDeps, origin: string, institution: Institution): string {
  return institutionPage(deps.config, encodeURI(institution.isil), { base: origin });
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';
const SITEMAP_NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';

/** A version's institutions in sitemap files of `size` URLs at most, made once per version. */
const sitemapFiles = new WeakMap<Dataset, { size: number; files: Institution[][] }>();

function filesOf(dataset: Dataset, size: number): Institution[][] {
  let split = sitemapFiles.get(dataset);
  if (split?.size !== size) {
    const all = [...dataset.institutions()];
    const files: Institution[][] = [];
    for (let i = 0; i < all.length; i += size) files.push(all.slice(i, i + size));
    sitemapFiles.set(dataset, (split = { size, files }));
  }
  return split.files;
}

/** `GET /.well-known/void`: the VoID description of the dataset served. */
export function voidDescription(deps: RouteDeps): RequestHandler {
  /** The VoID answer, made again for a new version or a new set of dumps. */
  let answer: { key: string; made: Made } | undefined;
  return function voidDescription(req, res) {
    const { dataset } = currentDocuments(deps.service);
    const origin = publicOrigin(req);
    const dumps = newestDumps(deps, origin);
    const key = `${dataset.version} ${dumps.key} ${origin}`;
    if (answer?.key !== key)
      answer = {
        key,
        made: made(
          voidTurtle(deps, dataset, { origin, dumps: dumps.urls, changes: dumps.changes }),
        ),
      };
    send(req, res, deps, dataset, 'text/turtle;charset=UTF-8', answer.made);
  };
}

/** `GET /robots.txt`: everything may be read but the search, reconciliation and the endpoint. */
export function robots(deps: RouteDeps): RequestHandler {
  const head = `# ISIL Linked Data: every institution's page and document may be read.\nUser-agent: *\nAllow: /\nDisallow: ${SEARCH_PATH}\nDisallow: ${RECONCILE_PATH}\nDisallow: ${SPARQL_PATH}\n\n`;
  return function robots(req, res) {
    const { dataset } = currentDocuments(deps.service);
    const body = `${head}Sitemap: ${publicOrigin(req)}${SITEMAP_PATH}\n`;
    send(req, res, deps, dataset, 'text/plain;charset=utf-8', made(body));
  };
}

/** `GET /sitemap.xml`: the index of the sitemap files. `size`: URLs a file holds at most. */
export function sitemap(deps: RouteDeps, size = SITEMAP_SIZE): RequestHandler {
  const index = new PerVersion<Made>();
  return function sitemap(req, res) {
    const { dataset } = currentDocuments(deps.service);
    const base = publicOrigin(req);
    const answer = index.get(dataset, base, () => {
      const lastmod = dataset.loadedAt.toISOString();
      const entries = filesOf(dataset, size)
        .map(
          (_, i) =>
            `<sitemap><loc>${escapeHtml(`${base}${SITEMAPS_PATH}${i + 1}.xml`)}</loc><lastmod>${lastmod}</lastmod></sitemap>`,
        )
        .join('\n');
      return made(`${XML_HEAD}<sitemapindex xmlns="${SITEMAP_NS}">\n${entries}\n</sitemapindex>\n`);
    });
    send(req, res, deps, dataset, 'application/xml;charset=utf-8', answer);
  };
}

/** `GET /sitemaps/<n>.xml`: the pages of one file's institutions, with their `lastmod`. */
export function sitemaps(deps: RouteDeps, size = SITEMAP_SIZE): RequestHandler {
  const parts = new Map<number, { version: string; origin: string; made: Made }>();
  return function sitemaps(req, res) {
    const { dataset } = currentDocuments(deps.service);
    const m = /^([1-9]\d{0,5})\.xml$/.exec(pathBelow(req));
    const list = filesOf(dataset, size);
    const n = m ? Number(m[1]) : 0;
    if (n < 1 || n > list.length) throw notFound('No such sitemap file.');
    const origin = publicOrigin(req);
    let part = parts.get(n);
    if (part?.version !== dataset.version || part.origin !== origin) {
      const urls = list[n - 1]!.map((institution) => {
        // When the institution last changed, as its page's Last-Modified says (docs/history.md).
        const changed = dataset.history.lastChange(institution.isil);
        const modified = changed === undefined ? institution.modified : new Date(changed * 1000);
        const lastmod = modified ? `<lastmod>${modified.toISOString()}</lastmod>` : '';
        return `<url><loc>${escapeHtml(pageUrl(deps, origin, institution))}</loc>${lastmod}</url>`;
      }).join('\n');
      part = {
        version: dataset.version,
        origin,
        made: made(`${XML_HEAD}<urlset xmlns="${SITEMAP_NS}">\n${urls}\n</urlset>\n`),
      };
      parts.set(n, part);
    }
    send(req, res, deps, dataset, 'application/xml;charset=utf-8', part.made);
  };
}
