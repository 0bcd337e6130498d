// Test support for the registry's history: a registry with a past written by the loader's own
// commit step (five versions of generated institutions at fixed times) and an app serving it; a
// History of several versions built from real loads (each version's descriptions as the store
// serves them, the events by `diff`); and a small RFC 6690 link-format parser for TimeMaps.
import { createHash } from 'node:crypto';
import { loadSources } from '../../src/load/loadSources';
import { MemoryHistory } from '../../src/history/memory';
import {
  diff,
  type History,
  type HistoryEvent,
  type InstitutionState,
} from '../../src/history/model';
import { writeTriples } from '../../src/history/text';
import fs from 'node:fs';
import path from 'node:path';
import { createLogger, type Logger } from '../../src/util/logger';
import { createApp } from '../../src/http/app';
import { embeddedHistory } from '../../src/store/embedded/embeddedHistory';
import { generate } from '../../src/generate/generated';
import { commitVersion, type Committed } from '../../src/load/commit/commitVersion';
import { PREFIXES } from '../../src/rdf/namespaces';
import { Service } from '../../src/documents/service';
import { ADAPTERS, tempDir, testConfig, type Adapter } from '../support';
import type { Express } from 'express';
import { loadRemote } from '../../cli/remote';
import { adaptersFor } from '../../src/process/adapters';
import { bulkTarget, startVirtuoso, type Virtuoso } from '../servers/virtuoso';
/** A version of a test history: the sources it is loaded from, and its time (seconds, UTC). */
export interface TestVersion {
  readonly version: string;
  readonly time: number;
  readonly sources: readonly string[];
}

/** The states of a loaded version and the text of each live institution's description. */
async function statesOf(
  sources: readonly string[],
  baseIri: string,
): Promise<{ states: Map<string, InstitutionState>; texts: Map<string, string> }> {
  const { dataset } = await loadSources(sources, { baseIri });
  const states = new Map<string, InstitutionState>();
  const texts = new Map<string, string>();
  try {
    for (const institution of dataset.institutions()) {
      // As the loader's history holds it: the description as stored, its full fields included.
      const text = writeTriples((await dataset.describe(institution, 'full')).triples);
      const hash = createHash('sha256').update(text).digest('hex').slice(0, 32);
      states.set(institution.isil, { isil: institution.isil, status: 'live', hash });
      texts.set(hash, text);
    }
    for (const withdrawn of dataset.withdrawnInstitutions()) {
      const successor = withdrawn.successor;
      states.set(withdrawn.isil, {
        isil: withdrawn.isil,
        status: 'withdrawn',
        hash: '',
        ...(successor.kind === 'live' ? { successors: [successor.institution.isil] } : {}),
      });
    }
  } finally {
    dataset.free();
  }
  return { states, texts };
}

/**
 * The history of `versions` (oldest first), each loaded and compared with the one before, as the
 * change log records them; its mementos are the descriptions each version served.
 */
export async function historyOf(
  versions: readonly TestVersion[],
  baseIri: string,
): Promise<History> {
  const events: HistoryEvent[] = [];
  const texts = new Map<string, string>();
  let previous: Map<string, InstitutionState> | undefined;
  for (const { version, time, sources } of versions) {
    const loaded = await statesOf(sources, baseIri);
    for (const [hash, text] of loaded.texts) texts.set(hash, text);
    for (const change of diff(previous, loaded.states)) events.push({ ...change, version, time });
    previous = loaded.states;
  }
  return new MemoryHistory(
    versions.map(({ version, time }) => ({ version, time })),
    events,
    (event) => Promise.resolve(texts.get(event.hash!)!),
  );
}

/** A link of a link-format document (RFC 6690 §2): its target and its attributes. */
export interface ParsedLink {
  readonly target: string;
  readonly attributes: Readonly<Record<string, string>>;
  /** The relation types of `rel`, split at spaces. */
  readonly rels: readonly string[];
}

/**
 * The links of an `application/link-format` body (RFC 6690 §2): `<URI>` followed by
 * `;name=value` or `;name="quoted"` parameters, links separated by commas (a comma inside quotes
 * belongs to the value). Throws on anything else, so that a malformed TimeMap fails its test.
 */
export function parseLinkFormat(text: string): ParsedLink[] {
  const links: ParsedLink[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const fail = (why: string): never => {
    throw new Error(`link-format: ${why} at ${i}: ${JSON.stringify(text.slice(i, i + 30))}`);
  };
  skipSpace();
  while (i < text.length) {
    if (text[i] !== '<') fail('a link starts with <');
    const end = text.indexOf('>', i);
    if (end < 0) fail('no > ends the URI');
    const target = text.slice(i + 1, end);
    i = end + 1;
    const attributes: Record<string, string> = {};
    skipSpace();
    while (text[i] === ';') {
      i++;
      skipSpace();
      const name =
        /^[a-zA-Z0-9!#$&+\-.^_`|~*]+/.exec(text.slice(i))?.[0] ?? fail('a parameter name');
      i += name.length;
      skipSpace();
      let value = '';
      if (text[i] === '=') {
        i++;
        skipSpace();
        if (text[i] === '"') {
          const close = text.indexOf('"', i + 1);
          if (close < 0) fail('an unterminated quoted value');
          value = text.slice(i + 1, close);
          i = close + 1;
        } else {
          value = /^[^;,\s]*/.exec(text.slice(i))![0];
          i += value.length;
        }
      }
      if (name in attributes) fail(`a repeated parameter ${name}`);
      attributes[name] = value;
      skipSpace();
    }
    links.push({ target, attributes, rels: (attributes.rel ?? '').split(/\s+/).filter(Boolean) });
    if (i >= text.length) break;
    if (text[i] !== ',') fail('links are separated by commas');
    i++;
    skipSpace();
  }
  return links;
}

export const HISTORY_BASE = 'https://ld.zdb-services.de';

/** The ISIL of a generated institution's N-Triples. */
export const isilOf = (block: string): string => /organisations\/([^>]+)>/.exec(block)![1]!;

const renamed = (block: string, mark: string) =>
  block.replace('(synthetisch)"', `(synthetisch) ${mark}"`);

/** `block` withdrawn, naming `successor`'s institution. */
function withdrawn(block: string, successor: string): string {
  const iri = `<${HISTORY_BASE}/resource/organisations/${isilOf(block)}>`;
  const next = `<${HISTORY_BASE}/resource/organisations/${isilOf(successor)}>`;
  return (
    `${block}${iri} <${PREFIXES.owl}deprecated> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .\n` +
    `${iri} <${PREFIXES.dcterms}isReplacedBy> ${next} .\n`
  );
}

/**
 * Five versions of `count` generated institutions (N-Triples, one string each), each a kind of
 * change: (1) all created; (2) the third renamed, the fifth deleted, one created; (3) the seventh
 * withdrawn with the eighth as successor, the first renamed; (4) the third renamed again; (5) a
 * rollback to the sources of (2).
 */
export function registryVersions(count = 40): string[] {
  const all = [...generate({ count: count + 1, seed: 11, base: HISTORY_BASE })];
  const base = all.slice(0, count);
  const extra = all[count]!;
  const v1 = base;
  const v2 = base
    .map((b, i) => (i === 2 ? renamed(b, '(umbenannt)') : b))
    .filter((_, i) => i !== 4)
    .concat(extra);
  const v3 = v2.map((b, i) => (i === 0 ? renamed(b, '(neu)') : i === 5 ? withdrawn(b, v2[6]!) : b));
  const v4 = v3.map((b, i) => (i === 2 ? b.replace('(umbenannt)"', '(wieder umbenannt)"') : b));
  return [v1, v2, v3, v4, v2].map((blocks) => blocks.join(''));
}

/** The times of the versions: a day apart, from 1 March 2025 at noon (UTC). */
export const VERSION_TIMES = [0, 1, 2, 3, 4].map((day) => Date.UTC(2025, 2, 1 + day, 12) / 1000);

export interface HistoryFixture {
  readonly dir: string;
  /** The snapshot of the last version, and the folder of its change log. */
  readonly dataset: string;
  readonly historyDir: string;
  /** What each version's commit made. */
  readonly committed: readonly Committed[];
  /** Each version's N-Triples file. */
  readonly sources: readonly string[];
}

/**
 * The versions written one after another, as `npm run load` writes them, at `times` (seconds); the
 * log keeps `keepVersions` versions (0: all).
 */
export async function writeHistory(
  versions = registryVersions(),
  keepVersions = 0,
  times: readonly number[] = VERSION_TIMES,
): Promise<HistoryFixture> {
  const dir = tempDir();
  const dataset = path.join(dir, 'dataset.nq');
  const historyDir = path.join(dir, 'history');
  const target = { dataset, baseIri: HISTORY_BASE, historyDir, historyKeepVersions: keepVersions };
  const committed: Committed[] = [];
  const sources: string[] = [];
  for (const [i, text] of versions.entries()) {
    const source = path.join(dir, `v${i + 1}.nt`);
    fs.writeFileSync(source, text);
    sources.push(source);
    const loaded = await loadSources([source], { baseIri: HISTORY_BASE });
    try {
      committed.push(await commitVersion(loaded, target, { now: new Date(times[i]! * 1000) }));
    } finally {
      loaded.dataset.free();
    }
  }
  return { dir, dataset, historyDir, committed, sources };
}

/** The Virtuoso each fixture's versions were loaded into, for the remote adapter: one a fixture. */
const remotes = new WeakMap<HistoryFixture, Promise<Virtuoso>>();

/**
 * The fixture's versions loaded into a Virtuoso of their own, one after another, as `npm run load`
 * with STORE=remote writes them (through the bulk loader), at the fixture's times.
 */
export function remoteHistory(fixture: HistoryFixture): Promise<Virtuoso> {
  let virtuoso = remotes.get(fixture);
  if (!virtuoso) {
    virtuoso = (async () => {
      const server = await startVirtuoso(60_000, 30);
      const config = { baseIri: HISTORY_BASE };
      for (const [i, file] of fixture.sources.entries())
        await loadRemote(
          [file],
          config,
          config,
          bulkTarget(server),
          undefined,
          new Date(fixture.committed[i]!.time! * 1000),
        );
      return server;
    })();
    remotes.set(fixture, virtuoso);
  }
  return virtuoso;
}

/**
 * The app serving the fixture's last version with its history, as the server would: from its
 * snapshot and change log (embedded), or from a Virtuoso holding its versions (remote).
 */
export async function historyApp(
  fixture: HistoryFixture,
  env: Record<string, string> = {},
  adapter: Adapter = 'embedded',
  logger: Logger = createLogger('silent'),
) {
  if (adapter === 'remote') return remoteApp(fixture, env, logger);
  const config = testConfig({
    BASE_IRI: HISTORY_BASE,
    // The feed's and the provider's tests ask on hosts of their own (Host): URLs follow them.
    PUBLIC_URL: '',
    DATASET: fixture.dataset,
    HISTORY_DIR: fixture.historyDir,
    ...env,
  });
  const service = new Service(config);
  await reloadHistory(service, fixture);
  const app = createApp({ service, logger });
  return { app, service, config, dataset: service.current!.dataset };
}

/** The fixture's last version loaded again into `service` and swapped in, as a reload does. */
export async function reloadHistory(service: Service, fixture: HistoryFixture): Promise<void> {
  const { dataset } = await loadSources([fixture.dataset], { baseIri: HISTORY_BASE });
  dataset.history = await embeddedHistory(
    service.config,
    { sources: [fixture.dataset], options: { baseIri: HISTORY_BASE }, snapshot: true },
    dataset,
  );
  service.use(dataset);
}

async function remoteApp(fixture: HistoryFixture, env: Record<string, string>, logger: Logger) {
  const virtuoso = await remoteHistory(fixture);
  const config = testConfig({
    BASE_IRI: HISTORY_BASE,
    PUBLIC_URL: '',
    STORE: 'remote',
    SPARQL_ENDPOINT: virtuoso.endpoint,
    ...env,
  });
  const adapters = adaptersFor(config, createLogger('silent'));
  const load = {
    sources: [virtuoso.endpoint],
    options: { baseIri: HISTORY_BASE },
    snapshot: false,
    remote: true,
  };
  const { dataset } = await adapters.store.open(load);
  dataset.history = await adapters.history(load, dataset);
  const service = new Service(config, { storeHealth: () => adapters.store.health() });
  service.use(dataset);
  const app = createApp({ service, logger });
  return { app, service, config, dataset };
}

/** An app over a fixture's history, and that history: one function an adapter. */
export type HistoryServed = (
  fixture: HistoryFixture,
  env?: Record<string, string>,
) => Promise<{ app: Express; history: History }>;

/** `historyApp` on each adapter the run has (ADAPTERS), named. */
export const HISTORY_APPS: readonly [Adapter, HistoryServed][] = ADAPTERS.map((adapter) => [
  adapter,
  async (fixture, env = {}) => {
    const { app, dataset } = await historyApp(fixture, env, adapter);
    return { app, history: dataset.history };
  },
]);
