// A client for SRU 1.1 searchRetrieve (https://www.loc.gov/standards/sru/sru-1-1.html): it pages
// through one result set with startRecord/maximumRecords, politely and with retries, and hands on
// each page's PicaPlus-XML records as the XML the server sent (read by sruResponse.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { parseSearchRetrieveResponse, SruError, type SruPage } from './sruResponse';

export { PPXML_NS, SruError, type SruPage, type SruRecord } from './sruResponse';

/** A page as the harvest gives it out. */
export interface HarvestedPage extends SruPage {
  readonly startRecord: number;
  /** Requests this page took, retries included. */
  readonly attempts: number;
  readonly ms: number;
}

export interface RetryEvent {
  readonly startRecord: number;
  /** 1 for the first retry. */
  readonly retry: number;
  readonly reason: string;
  readonly delayMs: number;
}

export interface SruOptions {
  /** The SRU base URL, e.g. `https://services.dnb.de/sru/bib`. */
  readonly url: string;
  /** The CQL query. */
  readonly query: string;
  readonly recordSchema: string;
  /** `maximumRecords` of each request. */
  readonly pageSize: number;
  /** At most this many requests a second, retries included. */
  readonly rate: number;
  /** Retries of one page before the harvest gives up. */
  readonly retries: number;
  /** Time one request may take, body included. */
  readonly timeoutMs: number;
  readonly userAgent: string;
  /** First backoff; it doubles with each retry of the same page. */
  readonly backoffMs?: number;
  /** The backoff stops growing here. */
  readonly maxBackoffMs?: number;
  /** A longer `Retry-After` than this ends the harvest instead of stalling it. */
  readonly maxRetryAfterMs?: number;
  readonly onRetry?: (event: RetryEvent) => void;
  readonly signal?: AbortSignal;
}

const DEFAULT_BACKOFF_MS = 1_000;
const DEFAULT_MAX_BACKOFF_MS = 60_000;
const DEFAULT_MAX_RETRY_AFTER_MS = 300_000;

/** Characters an ISIL may hold (ISO 15511): a prefix with anything else is refused. */
const ISIL_PREFIX = /^[A-Za-z0-9:/-]{1,16}$/;

/**
 * The CQL query for every record whose ISIL starts with one of the prefixes, in the DNB ISIL
 * catalogue's `isl` index ("ISIL ohne Verweisungen": the record's own ISIL, not the retired ones
 * that refer to it). Terms are quoted because an ISIL may hold `/`, which CQL only allows inside
 * quotes; `*` masks the rest of the term, quoted or not (CQL 1.2, "Masking").
 */
export function isilPrefixQuery(prefixes: readonly string[], index = 'isl'): string {
  if (prefixes.length === 0) throw new SruError('no ISIL prefix given');
  return prefixes
    .map((prefix) => {
      if (!ISIL_PREFIX.test(prefix)) {
        throw new SruError(
          `ISIL prefix ${JSON.stringify(prefix)}: expected 1 to 16 of A-Z a-z 0-9 - : /`,
        );
      }
      return `${index}="${prefix}*"`;
    })
    .join(' or ');
}

/** The searchRetrieve request URL for one page (SRU 1.1 §4.1 parameters). */
export function searchRetrieveUrl(
  options: Pick<SruOptions, 'url' | 'query' | 'recordSchema' | 'pageSize'>,
  startRecord: number,
): string {
  const url = new URL(options.url);
  const params = url.searchParams;
  params.set('version', '1.1');
  params.set('operation', 'searchRetrieve');
  params.set('query', options.query);
  params.set('recordSchema', options.recordSchema);
  params.set('recordPacking', 'xml');
  params.set('startRecord', String(startRecord));
  params.set('maximumRecords', String(options.pageSize));
  return url.href;
}

/**
 * How long `Retry-After` asks to wait, in ms (RFC 9110 §10.2.3: delay-seconds or an HTTP-date);
 * undefined when absent or unreadable.
 */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Spaces the start of requests at least 1/rate seconds apart. */
export class Pacer {
  private next = 0;
  constructor(private readonly intervalMs: number) {}

  async wait(signal: AbortSignal | undefined): Promise<void> {
    const now = performance.now();
    if (now < this.next) await sleep(this.next - now, undefined, { signal });
    this.next = Math.max(now, this.next) + this.intervalMs;
  }
}

/** The limits and manners of every request of a harvest, SRU or OAI-PMH. */
export type RequestOptions = Pick<
  SruOptions,
  | 'retries'
  | 'timeoutMs'
  | 'userAgent'
  | 'backoffMs'
  | 'maxBackoffMs'
  | 'maxRetryAfterMs'
  | 'signal'
>;

/** Reads a 200's body into a page; throws SruError for an answer that ends the harvest. */
export type BodyReader<T> = (response: Response, url: string) => Promise<T>;

type Attempt<T> =
  { readonly page: T } | { readonly retry: string; readonly retryAfterMs?: number | undefined };

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Why a request that threw is worth another try (a time-out, the network), or (thrown) none. */
function failedAttempt(
  error: unknown,
  options: RequestOptions,
  timeout: AbortSignal,
): Attempt<never> {
  if (error instanceof SruError) throw error;
  if (options.signal?.aborted) throw new SruError('interrupted');
  if (timeout.aborted) return { retry: `no complete answer within ${options.timeoutMs} ms` };
  const cause = (error as Error & { cause?: Error }).cause;
  return { retry: `network error: ${cause?.message ?? (error as Error).message}` };
}

/** One request: a page, a reason to try again, or (thrown) a reason to stop. */
async function attempt<T>(
  url: string,
  options: RequestOptions,
  read: BodyReader<T>,
): Promise<Attempt<T>> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const response = await fetch(url, {
      headers: { 'User-Agent': options.userAgent, Accept: 'application/xml, text/xml' },
      signal,
    });
    const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    if (response.status !== 200) await response.arrayBuffer();
    // 429 (RFC 6585 §4) and 503 say when to come back; other 5xx are worth another try.
    if (response.status === 429 || response.status >= 500) {
      return { retry: status, retryAfterMs: retryAfterMs(response.headers.get('retry-after')) };
    }
    if (response.status !== 200) throw new SruError(`${status} for ${url}`);
    return { page: await read(response, url) };
  } catch (error) {
    return failedAttempt(error, options, timeout);
  }
}

/** An SRU page read from its body, whole. */
const readSruPage: BodyReader<SruPage> = async (response, url) => {
  const body = await response.arrayBuffer();
  let text: string;
  try {
    text = decoder.decode(body);
  } catch {
    throw new SruError(`response to ${url} is not UTF-8`);
  }
  try {
    return parseSearchRetrieveResponse(text);
  } catch (error) {
    if (error instanceof SruError) throw new SruError(`${error.message} (${url})`);
    throw error;
  }
};

/**
 * Fetches one page, retrying with exponential backoff and jitter; `where` names the page in the
 * messages (`startRecord 101`).
 */
export async function fetchWithRetries<T>(
  url: string,
  where: string,
  options: RequestOptions,
  pacer: Pacer,
  read: BodyReader<T>,
  onRetry: (event: { retry: number; reason: string; delayMs: number }) => void = () => {},
): Promise<{ page: T; attempts: number }> {
  const backoff = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const maxBackoff = options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS;
  const maxRetryAfter = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  for (let retry = 0; ; retry++) {
    await pacer.wait(options.signal).catch(() => {
      throw new SruError('interrupted');
    });
    const result = await attempt(url, options, read);
    if ('page' in result) return { page: result.page, attempts: retry + 1 };
    if (retry >= options.retries) {
      throw new SruError(
        `${where}: gave up after ${retry + 1} attempts; last: ${result.retry} (${url})`,
      );
    }
    if (result.retryAfterMs !== undefined && result.retryAfterMs > maxRetryAfter) {
      throw new SruError(
        `${where}: ${result.retry} asks to wait ${Math.ceil(result.retryAfterMs / 1000)} s, ` +
          `more than ${maxRetryAfter / 1000} s (${url})`,
      );
    }
    // "Equal jitter" (half the doubled delay, plus a random share of the other half) keeps
    // clients that failed together from retrying together, yet still backs off.
    const ceiling = Math.min(maxBackoff, backoff * 2 ** retry);
    const delayMs = Math.max(result.retryAfterMs ?? 0, ceiling / 2 + (Math.random() * ceiling) / 2);
    onRetry({ retry: retry + 1, reason: result.retry, delayMs });
    await sleep(delayMs, undefined, { signal: options.signal }).catch(() => {
      throw new SruError('interrupted');
    });
  }
}

/** Fetches one SRU page, with the retries of `fetchWithRetries`. */
function fetchPage(
  startRecord: number,
  options: SruOptions,
  pacer: Pacer,
): Promise<{ page: SruPage; attempts: number }> {
  return fetchWithRetries(
    searchRetrieveUrl(options, startRecord),
    `startRecord ${startRecord}`,
    options,
    pacer,
    readSruPage,
    (event) => options.onRetry?.({ startRecord, ...event }),
  );
}

/**
 * Every page of the result set, in order. It stops at the end the server announces, and refuses
 * what would lose or repeat records: a result set that changes size between pages, records out of
 * position, a `nextRecordPosition` that skips, an end before `numberOfRecords`.
 */
export async function* searchRetrievePages(options: SruOptions): AsyncGenerator<HarvestedPage> {
  const pacer = new Pacer(1000 / options.rate);
  let startRecord = 1;
  let total: number | undefined;
  for (;;) {
    const began = performance.now();
    const { page, attempts } = await fetchPage(startRecord, options, pacer);
    total ??= page.numberOfRecords;
    if (page.numberOfRecords !== total) {
      throw new SruError(
        `the result set changed during the harvest: numberOfRecords was ${total}, ` +
          `then ${page.numberOfRecords} at startRecord ${startRecord}; harvest again`,
      );
    }
    page.records.forEach((record, i) => {
      if (record.position !== undefined && record.position !== startRecord + i) {
        throw new SruError(
          `record at recordPosition ${record.position} where ${startRecord + i} was expected`,
        );
      }
    });
    const last = startRecord + page.records.length - 1;
    if (page.records.length === 0 && startRecord <= total) {
      throw new SruError(`no records at startRecord ${startRecord} of ${total}`);
    }
    yield { ...page, startRecord, attempts, ms: performance.now() - began };
    const next = page.nextRecordPosition;
    if (next === undefined) {
      if (last < total) {
        throw new SruError(
          `the server ended the result set at record ${last} of ${total} (no nextRecordPosition)`,
        );
      }
      return;
    }
    if (next !== last + 1) {
      throw new SruError(`nextRecordPosition ${next} does not follow record ${last}`);
    }
    if (next > total) return;
    startRecord = next;
  }
}
