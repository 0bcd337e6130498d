// The change feed's documents as the HTTP layer serves them: rendered once (single flight), kept in
// a byte-bounded cache, and rendered through a queue of their own whose bounds a flood meets (429)
// and one well-behaved client never does.
import type { History } from '../history/model';
import {
  FEED_PAGE_SIZE,
  FEED_ROOT_RUNS,
  feedLayout,
  findPage,
  isImmutable,
  type FeedLayout,
  type PageLookup,
} from './feedLayout';
import {
  indexStatements,
  pageStatements,
  rootStatements,
  writeFeed,
  type FeedFormat,
  type StreamSettings,
} from './feedStatements';
import { RenderQueue } from './renderQueue';
import { Representation, type Answer } from './representation';

/**
 * Page renders that run at once: a render reads its members' descriptions from the log and
 * writes text in this thread, so more than the cores only queue inside.
 */
export const FEED_RENDERS_IN_FLIGHT = 2;

/**
 * Renders that may wait for a place: room for several clients at the reference client's default
 * of 10 requests at once; past it, a request is answered 429 with Retry-After.
 */
export const FEED_RENDERS_WAITING = 48;

/** Bytes of rendered pages kept (with their compressed forms), least recently used dropped first. */
export const FEED_CACHE_BYTES = 64 * 1024 * 1024;

/** `Cache-Control` of a page that never changes (RFC 8246). */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A document of the feed: the root (`''`) or a page's id, in one format. */
export interface FeedAnswer {
  readonly representation: Representation;
  readonly immutable: boolean;
}

/** How a document's answer is made: its headers, given its format, immutability and validators. */
export type FeedHeaders = (format: FeedFormat, immutable: boolean) => Answer;

export class FeedPages {
  private history: History | undefined;
  private layoutOf: FeedLayout | undefined;
  private readonly cache = new Map<string, FeedAnswer>();
  private cached = 0;
  private readonly rendering = new Map<string, Promise<FeedAnswer>>();

  constructor(
    private readonly settings: StreamSettings,
    private readonly headers: FeedHeaders,
    readonly queue = new RenderQueue(FEED_RENDERS_IN_FLIGHT, FEED_RENDERS_WAITING),
    private readonly maxBytes = FEED_CACHE_BYTES,
    /** Runs the root and each index page link (FEED_ROOT_RUNS; tests lower it). */
    private readonly groupSize = FEED_ROOT_RUNS,
  ) {}

  /** The pages of `history`, cut once per history (a new version brings a new one). */
  layout(history: History): FeedLayout {
    if (history !== this.history) {
      this.history = history;
      this.layoutOf = feedLayout(history, FEED_PAGE_SIZE, this.groupSize);
      this.cache.clear();
      this.cached = 0;
      this.rendering.clear();
    }
    return this.layoutOf!;
  }

  /** The page `id` of `history` (`''`: the root), or why there is none. */
  find(history: History, id: string): PageLookup | { kind: 'root' } {
    return id === '' ? { kind: 'root' } : findPage(this.layout(history), id);
  }

  /**
   * The document `id` (`''`: the root; else a page `find` found) in `format`: from the cache, or
   * rendered once however many ask at the same time. Rejects with RendersBusy when the queue is full.
   */
  get(history: History, id: string, format: FeedFormat, origin: string): Promise<FeedAnswer> {
    const layout = this.layout(history);
    // Its IRIs are on the origin asked: each has its own copy.
    const key = `${id} ${format.name} ${origin}`;
    const hit = this.cache.get(key);
    if (hit) {
      // Least recently used last out: a hit moves to the end of the map's order.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return Promise.resolve(hit);
    }
    let pending = this.rendering.get(key);
    if (!pending) {
      pending = this.queue
        .run(() => this.render(history, layout, id, format, origin))
        .then((answer) => {
          if (this.history === history) this.keep(key, answer);
          return answer;
        })
        .finally(() => this.rendering.delete(key));
      this.rendering.set(key, pending);
    }
    return pending;
  }

  private async render(
    history: History,
    layout: FeedLayout,
    id: string,
    format: FeedFormat,
    origin: string,
  ): Promise<FeedAnswer> {
    const newest = layout.newest ?? 0;
    if (id === '') {
      const text = writeFeed(rootStatements(layout, this.settings), format.name, origin);
      return this.answer(text, format, false, newest);
    }
    const found = findPage(layout, id);
    if (found.kind === 'index') {
      // Not immutable: retention drops the oldest runs, and the groups move with them.
      const text = writeFeed(indexStatements(layout, found.n), format.name, origin);
      return this.answer(text, format, false, newest);
    }
    if (found.kind !== 'page') throw new Error(`no page ${id} in the feed`);
    const { page } = found;
    const statements = await pageStatements(history, layout, page, this.settings.baseIri);
    const immutable = isImmutable(layout, page);
    return this.answer(writeFeed(statements, format.name, origin), format, immutable, page.made);
  }

  private answer(
    text: string,
    format: FeedFormat,
    immutable: boolean,
    changed: number,
  ): FeedAnswer {
    const representation = new Representation(
      Buffer.from(text),
      new Date(changed * 1000),
      this.headers(format, immutable),
    );
    return { representation, immutable };
  }

  private keep(key: string, answer: FeedAnswer): void {
    const bytes = answer.representation.bytes;
    if (bytes > this.maxBytes / 4) return;
    this.cache.set(key, answer);
    this.cached += bytes;
    answer.representation.holder = {
      grew: (_, more) => {
        if (this.cache.get(key) === answer) this.cached += more;
        this.evict();
      },
    };
    this.evict();
  }

  private evict(): void {
    for (const [key, old] of this.cache) {
      if (this.cached <= this.maxBytes) break;
      this.cache.delete(key);
      this.cached -= old.representation.bytes;
    }
  }
}
