// Renders an institution's documents (the four RDF formats and the HTML page) and keeps their
// representations (src/documents/representation.ts) in a byte-bounded LRU cache.
import type { Dataset, Institution } from '../store/dataset';
import type { FormatName } from '../rdf/formats';
import { SerializationError } from '../rdf/rdfxml';
import type { Description } from '../rdf/description';
import { CONTEXT_PATH } from '../rdf/context';
import { serialize } from '../rdf/serialize';
import { listedVersions, renderPage } from '../pages/institutionPage';
import type { PageLanguage } from '../pages/language';
import { RenderQueue } from './renderQueue';
import { ownBuffer, Representation, type Answer, type Holder } from './representation';
import type { HistoryEvent } from '../history/model';
import { readDescription } from '../history/text';
import { institutionIri, DIRECTORY_PATH } from '../rdf/iris';
import type { Isil } from '../rdf/isil';
import { zdbNTriples, type ProfileName } from '../rdf/profiles';
import { lastModified } from './lastModified';

/** The path of an institution's page on this service (the original of its HTML mementos). */
const pagePath = (isil: string) => `${DIRECTORY_PATH}${isil}`;

/**
 * What an entry costs the process beside its bytes: the entry, its key, the Representation with
 * the headers prepared in it (about 15 strings), each buffer's own object and allocation, and the
 * heap the collector keeps in proportion to all of these. Calibrated, not guessed, with every
 * document asked for in every format and coding: with this overhead the cache counts about what
 * the process holds for it (docs/benchmark.md, "every document × format × coding" and "an
 * entry's overhead").
 */
export const ENTRY_OVERHEAD = 9 * 1024;

/** What a rendered document holds in memory: its body and the compressed forms made so far. */
export function weight(representation: Representation): number {
  return ENTRY_OVERHEAD + representation.bytes;
}

interface Entry {
  readonly representation: Representation;
  /** Set by a hit, cleared when eviction passes the entry over once (CLOCK). */
  used: boolean;
}

/**
 * A byte-bounded cache that evicts in CLOCK order (second chance), an approximation of least
 * recently used: a hit only sets a flag, instead of moving the entry in the map on every read;
 * eviction passes over flagged entries once, moving them to the back. 0 bytes keeps nothing.
 */
export class DocumentCache implements Holder {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(readonly maxBytes: number) {}

  get size(): number {
    return this.entries.size;
  }

  get usedBytes(): number {
    return this.bytes;
  }

  get(key: string): Representation | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    hit.used = true;
    return hit.representation;
  }

  set(key: string, representation: Representation): void {
    const cost = weight(representation);
    if (cost > this.maxBytes) return;
    const previous = this.entries.get(key);
    if (previous) this.drop(previous);
    this.entries.set(key, { representation, used: false });
    representation.holder = this;
    this.bytes += cost;
    this.evict();
  }

  /**
   * A document gained a compressed form: counted while the document is cached (one evicted, or
   * never cached, is compressed for the request at hand and then left to the collector).
   */
  grew(representation: Representation, bytes: number): void {
    if (representation.holder !== this) return;
    this.bytes += bytes;
    this.evict();
  }

  private evict(): void {
    // Every flagged entry is passed over at most once, so this ends after two rounds at most.
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(key);
      if (entry.used) {
        entry.used = false;
        this.entries.set(key, entry);
        continue;
      }
      this.drop(entry);
    }
  }

  /** An entry leaves: its bytes are no longer counted, nor are compressed forms it gains later. */
  private drop(entry: Entry): void {
    this.bytes -= weight(entry.representation);
    entry.representation.holder = undefined;
  }
}

/**
 * The key of an institution's document among the ones that cannot be written: a page in each
 * language, and with or without `lang` in its links, is a document of its own.
 */
const keyOf = (
  institution: Institution,
  format: FormatName,
  language?: PageLanguage,
  profile: ProfileName = 'zdb',
) =>
  `${format}${language ? `${language.lang}${language.explicit ? '!' : ''}` : ''}${profile === 'zdb' ? '' : `+${profile}`}\u0000${institution.isil}`;

/** Its key in the cache: its URLs (context, links) are on the origin asked, each has a copy. */
const cacheKey = (origin: string, key: string) => `${origin}\u0001${key}`;

/** What pages say beyond their description (src/pages/institutionPage.ts). */
export interface PageSettings {
  readonly baseIri: string;
  readonly mapTiles: string;
  readonly mapAttribution: string;
}

/** What the documents of every dataset served count, for the metrics (src/process/metrics.ts). */
export class ServingStats {
  /** Documents answered from the cache. */
  hits = 0;
  /** Documents rendered: not in the cache when asked for. */
  misses = 0;
  /** Hears the time of each description asked of the store, in seconds. */
  onStoreQuery: ((seconds: number) => void) | undefined;
}

/** Renders and caches the documents of one dataset; a new dataset gets a new Documents. */
export class Documents {
  readonly cache: DocumentCache;
  /**
   * Why each document that could not be written failed (a format that cannot carry its data), so
   * that asking again answers at once instead of describing and serializing again. At most one
   * entry a document of the dataset, and dropped with it.
   */
  private readonly unwritable = new Map<string, SerializationError>();
  /**
   * The renders under way, by key: concurrent requests for one document share one store query and
   * one serialization (single flight), instead of each rendering its own copy.
   */
  private readonly rendering = new Map<string, Promise<Representation>>();
  /** Renders asked for and not settled: queued ones have not queried the store yet. */
  private pending = 0;
  /** Set when another dataset is served: the store is freed once no render of it is pending. */
  private retired = false;

  constructor(
    readonly dataset: Dataset,
    cacheMaxBytes: number,
    /** Bounds the renders of every dataset's documents: one queue for the process. */
    private readonly queue = new RenderQueue(),
    private readonly stats = new ServingStats(),
    private readonly page: PageSettings = { baseIri: '', mapTiles: '', mapAttribution: '' },
  ) {
    this.cache = new DocumentCache(cacheMaxBytes);
  }

  /** Documents being rendered now (each shared by every request that waits for it). */
  get renderingCount(): number {
    return this.rendering.size;
  }

  /** The cached document on `origin` (publicOrigin), answered synchronously: the hot path. */
  cached(
    origin: string,
    institution: Institution,
    format: FormatName,
    language?: PageLanguage,
    profile: ProfileName = 'zdb',
  ): Representation | undefined {
    const hit = this.cache.get(cacheKey(origin, keyOf(institution, format, language, profile)));
    if (hit) this.stats.hits++;
    return hit;
  }

  /** Why the document cannot be written, when an earlier `get` found it could not. */
  failed(
    institution: Institution,
    format: FormatName,
    profile: ProfileName = 'zdb',
  ): SerializationError | undefined {
    return this.unwritable.get(keyOf(institution, format, undefined, profile));
  }

  /**
   * The document, rendered when not cached, or the render of it already under way; rejects with a
   * SerializationError when it cannot be written, and with RendersBusy when the render queue is
   * full (src/renderQueue.ts). `answer` makes the headers of a document rendered now (the route's:
   * every route that asks for a key answers it alike).
   */
  get(
    origin: string,
    institution: Institution,
    format: FormatName,
    answer: Answer,
    language?: PageLanguage,
    profile: ProfileName = 'zdb',
  ): Promise<Representation> {
    return this.through(origin, keyOf(institution, format, language, profile), () =>
      this.render(origin, institution, format, answer, language, profile),
    );
  }

  /** A memento's document (`event`: the change that made it), cached: made by `mementoOf`'s key. */
  cachedMemento(
    origin: string,
    event: HistoryEvent,
    format: FormatName,
    language?: PageLanguage,
  ): Representation | undefined {
    const hit = this.cache.get(cacheKey(origin, mementoKey(event, format, language)));
    if (hit) this.stats.hits++;
    return hit;
  }

  /**
   * The document of a memento (RFC 7089): what the history keeps of the institution as `event`
   * left it, written by the same serializers (a page with today's template, saying which date it
   * shows), cached and rendered as current documents are.
   */
  memento(
    origin: string,
    event: HistoryEvent,
    format: FormatName,
    answer: Answer,
    language?: PageLanguage,
  ): Promise<Representation> {
    return this.through(origin, mementoKey(event, format, language), () =>
      this.renderMemento(origin, event, format, answer, language),
    );
  }

  /**
   * A representation made from what is in memory rather than rendered from a description (a
   * TimeMap, made from the history): cached by `key` (with the origin) beside the documents.
   */
  made(key: string, make: () => Representation): Representation {
    const full = `\u0000${key}`;
    const cached = this.cache.get(full);
    if (cached) {
      this.stats.hits++;
      return cached;
    }
    this.stats.misses++;
    const representation = make();
    this.cache.set(full, representation);
    return representation;
  }

  /** `document` on `origin`: cached, under way, or rendered now; unwritable on every origin. */
  private through(origin: string, document: string, make: () => Promise<Representation>) {
    const key = cacheKey(origin, document);
    const cached = this.cache.get(key);
    if (cached) {
      this.stats.hits++;
      return Promise.resolve(cached);
    }
    const under = this.rendering.get(key);
    if (under) return under;
    this.stats.misses++;
    this.pending++;
    const render = this.queue.run(make).then(
      (representation) => {
        this.settled(key);
        this.cache.set(key, representation);
        return representation;
      },
      (error: unknown) => {
        this.settled(key);
        if (error instanceof SerializationError) this.unwritable.set(document, error);
        throw error;
      },
    );
    this.rendering.set(key, render);
    return render;
  }

  private settled(key: string): void {
    this.rendering.delete(key);
    this.release();
  }

  /**
   * Runs `work`, which reads this dataset's store outside a render (an OAI-PMH list, a page of the
   * change feed): the store is not freed before it settles, whatever reload comes meanwhile. Called
   * in the turn the documents were taken (`currentDocuments`), before a swap can retire them.
   */
  async hold<T>(work: () => Promise<T>): Promise<T> {
    this.pending++;
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private release(): void {
    if (--this.pending === 0 && this.retired) this.dataset.free();
  }

  /**
   * Another dataset is served from now on: this one's store is freed once every render asked of
   * it has settled. A render waiting in the render queue has not queried the store yet; freeing
   * the store under it would fail a request that took this dataset before the swap.
   */
  retire(): void {
    if (this.retired) return;
    this.retired = true;
    if (this.pending === 0) this.dataset.free();
  }

  private async render(
    origin: string,
    institution: Institution,
    format: FormatName,
    answer: Answer,
    language: PageLanguage = { lang: 'de', explicit: false },
    profile: ProfileName = 'zdb',
  ): Promise<Representation> {
    const asked = this.stats.onStoreQuery ? performance.now() : 0;
    const description = await this.dataset.describe(institution, profile);
    this.stats.onStoreQuery?.((performance.now() - asked) / 1000);
    const page = { asOf: undefined, profile };
    const text = await this.write(origin, description, institution, format, language, page);
    const body = ownBuffer(Buffer.from(text, 'utf8'));
    const modified = lastModified(this.dataset, institution, description);
    return new Representation(body, modified, answer, format);
  }

  private async renderMemento(
    origin: string,
    event: HistoryEvent,
    format: FormatName,
    answer: Answer,
    language: PageLanguage = { lang: 'de', explicit: false },
  ): Promise<Representation> {
    const isil = event.isil as Isil;
    const iri = institutionIri(this.dataset.baseIri, isil);
    // The history holds the description as stored, `full` fields and all: its `zdb` projection.
    const stored = await this.dataset.history.description(event);
    const description = readDescription(iri, zdbNTriples(stored));
    const institution: Institution = { isil, iri, name: undefined, modified: undefined };
    const text = await this.write(origin, description, institution, format, language, {
      asOf: event.time,
    });
    const body = ownBuffer(Buffer.from(text, 'utf8'));
    return new Representation(body, new Date(event.time * 1000), answer, format);
  }

  /** The description in `format`; a page lists the institution's versions (`asOf`: a memento's). */
  private async write(
    origin: string,
    description: Description,
    institution: Institution,
    format: FormatName,
    language: PageLanguage,
    { asOf, profile = 'zdb' }: { asOf?: number | undefined; profile?: ProfileName } = {},
  ): Promise<string> {
    const contextUrl = `${origin}${CONTEXT_PATH}`;
    if (format !== 'html') return serialize(description, format, contextUrl);
    const jsonld = await serialize(description, 'jsonld', contextUrl);
    const page = pagePath(institution.isil);
    return renderPage(description, institution, jsonld, {
      ...this.page,
      language,
      predecessors: this.dataset
        .predecessors(institution.isil)
        .map((w) => ({ isil: w.isil, name: w.name })),
      ...listedVersions(this.dataset.history.mementos(institution.isil), page),
      ...(asOf === undefined
        ? { position: this.dataset.positions?.get(institution.isil) }
        : { asOf: { time: asOf, current: page } }),
      profile,
    });
  }
}

/** A memento's key: its datetime beside the format, so that no current document's key is one. */
const mementoKey = (event: HistoryEvent, format: FormatName, language?: PageLanguage) =>
  `${format}${language ? `${language.lang}${language.explicit ? '!' : ''}` : ''}@${event.time}\u0000${event.isil}`;
