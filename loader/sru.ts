// A client for SRU 1.1 searchRetrieve (https://www.loc.gov/standards/sru/sru-1-1.html): it pages
// through one result set with startRecord/maximumRecords, politely and with retries, and hands on
// each page's PicaPlus-XML records as the XML the server sent.
import { setTimeout as sleep } from 'node:timers/promises';
import { SaxesParser, type SaxesTagNS } from 'saxes';

/** The namespace of PicaPlus-XML records (`recordSchema=PicaPlus-xml`). */
export const PPXML_NS = 'http://www.oclcpica.org/xmlns/ppxml-1.0';
/** SRU 1.1 responses and their diagnostics. */
const SRW_NS = 'http://www.loc.gov/zing/srw/';
const DIAGNOSTIC_NS = 'http://www.loc.gov/zing/srw/diagnostic/';

/** A harvest that cannot go on: the message says why, and where. */
export class SruError extends Error {
  override name = 'SruError';
}

/** One record of a page, as the server sent it. */
export interface SruRecord {
  /** `recordPosition`, when the server gives it. */
  readonly position: number | undefined;
  /** The PICA+ record id (003@ $0), when the record has one. */
  readonly id: string | undefined;
  /**
   * The `<ppxml:record>` element exactly as received, with the namespace declarations it relied
   * on from the envelope added to its start tag, so that it stands on its own.
   */
  readonly xml: string;
}

export interface SruPage {
  readonly numberOfRecords: number;
  readonly nextRecordPosition: number | undefined;
  readonly records: readonly SruRecord[];
}

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

interface Open {
  readonly uri: string;
  readonly local: string;
  readonly ns: Readonly<Record<string, string>>;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
}

function integer(text: string, name: string): number {
  const value = text.trim();
  if (!/^\d+$/.test(value)) throw new SruError(`${name} is not a number: ${JSON.stringify(value)}`);
  return Number(value);
}

/** The prefixes a start tag relies on: its own (`''` for the default namespace) and its attributes'. */
function prefixesUsed(tag: SaxesTagNS): string[] {
  const used = [tag.prefix];
  for (const attribute of Object.values(tag.attributes)) {
    // An unprefixed attribute is in no namespace, whatever the default is.
    if (attribute.prefix !== '' && attribute.prefix !== 'xmlns') used.push(attribute.prefix);
  }
  return used.filter((prefix) => prefix !== 'xml');
}

/**
 * Reads one searchRetrieveResponse. Diagnostics (SRU 1.1 §8), for the whole response or in place of
 * a record, are errors with their message; so is anything that is not well-formed or not SRU.
 */
export function parseSearchRetrieveResponse(text: string): SruPage {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const stack: Open[] = [];
  const records: SruRecord[] = [];
  const diagnostics: string[] = [];
  let numberOfRecords: number | undefined;
  let nextRecordPosition: number | undefined;
  let buffer = '';
  let diagnostic: Record<string, string> = {};
  // The SRU record being read (counted from 1 in the page), its position and its PICA record.
  let inPage = 0;
  let recordPosition: number | undefined;
  let pica: { readonly id: string | undefined; readonly xml: string } | undefined;
  // The PICA record being copied: where its start tag is, the namespace bindings around it, the
  // prefixes inside it that only those outer bindings declare, and its 003@ $0.
  let copy:
    | {
        readonly depth: number;
        readonly start: number;
        readonly outer: Readonly<Record<string, string>>;
        readonly needed: Set<string>;
        id: string | undefined;
        in003: boolean;
        inId: boolean;
      }
    | undefined;

  const isSrw = (open: Open | undefined, local: string): boolean =>
    open !== undefined && open.uri === SRW_NS && open.local === local;
  const parent = (): Open | undefined => stack[stack.length - 1];
  const boundInCopy = (prefix: string): boolean => {
    for (let i = copy?.depth ?? stack.length; i < stack.length; i++) {
      if (stack[i]?.ns[prefix] !== undefined) return true;
    }
    return false;
  };

  parser.on('xmldecl', (decl) => {
    if (decl.encoding !== undefined && !/^utf-?8$/i.test(decl.encoding)) {
      throw new SruError(`the response declares encoding ${decl.encoding}; only UTF-8 is read`);
    }
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    buffer = '';
    const depth = stack.length;
    if (depth === 0 && (tag.uri !== SRW_NS || tag.local !== 'searchRetrieveResponse')) {
      throw new SruError(
        `not an SRU 1.1 searchRetrieveResponse: the document is <${tag.name}> in ${JSON.stringify(tag.uri)}`,
      );
    }
    if (!copy && isSrw(parent(), 'recordData')) {
      if (tag.uri === PPXML_NS && tag.local === 'record' && !pica) {
        const outer: Record<string, string> = {};
        for (const open of stack) Object.assign(outer, open.ns);
        copy = {
          depth,
          start: text.lastIndexOf('<', parser.position - 1),
          outer,
          needed: new Set(),
          id: undefined,
          in003: false,
          inId: false,
        };
      } else if (tag.uri !== DIAGNOSTIC_NS || tag.local !== 'diagnostic') {
        throw new SruError(
          `record ${inPage} of the page holds <${tag.name}> in ${JSON.stringify(tag.uri)}, not one PicaPlus-XML record`,
        );
      }
    }
    stack.push({ uri: tag.uri, local: tag.local, ns: tag.ns });
    if (copy) {
      for (const prefix of prefixesUsed(tag)) {
        if (!boundInCopy(prefix)) copy.needed.add(prefix);
      }
      if (tag.uri === PPXML_NS && tag.local === 'tag' && depth === copy.depth + 2) {
        copy.in003 = tag.attributes.id?.value === '003@';
      } else if (copy.in003 && tag.uri === PPXML_NS && tag.local === 'subf') {
        copy.inId = tag.attributes.id?.value === '0';
      }
    } else if (tag.uri === SRW_NS && tag.local === 'record' && depth === 2) {
      inPage++;
      recordPosition = undefined;
      pica = undefined;
    } else if (tag.uri === DIAGNOSTIC_NS && tag.local === 'diagnostic') {
      diagnostic = {};
    }
  });
  parser.on('text', (chunk) => {
    buffer += chunk;
  });
  parser.on('cdata', (chunk) => {
    buffer += chunk;
  });
  parser.on('closetag', (tag: SaxesTagNS) => {
    stack.pop();
    const depth = stack.length;
    if (copy) {
      if (copy.inId) {
        copy.id ??= buffer.trim();
        copy.inId = false;
      }
      if (depth > copy.depth) return;
      const outer = copy.outer;
      // Bindings that only the envelope declared are added to the record's start tag; an
      // undeclared default namespace needs nothing, as the wrapper written around it has none.
      const declarations = [...copy.needed]
        .filter((prefix) => outer[prefix] !== undefined && outer[prefix] !== '')
        .map(
          (prefix) =>
            ` ${prefix === '' ? 'xmlns' : `xmlns:${prefix}`}="${escapeAttribute(outer[prefix] ?? '')}"`,
        )
        .join('');
      const nameEnd = copy.start + 1 + tag.name.length;
      pica = {
        id: copy.id,
        xml: text.slice(copy.start, nameEnd) + declarations + text.slice(nameEnd, parser.position),
      };
      copy = undefined;
      return;
    }
    if (tag.uri === DIAGNOSTIC_NS) {
      if (tag.local !== 'diagnostic') {
        diagnostic[tag.local] = buffer.trim();
        return;
      }
      const parts = [diagnostic.message, diagnostic.details].filter((part) => part);
      const message = `${diagnostic.uri ?? '(no uri)'}${parts.length ? `: ${parts.join(' – ')}` : ''}`;
      // A diagnostic in place of a record (a "surrogate diagnostic", SRU 1.1 §8.2) means that
      // record is missing from the harvest.
      if (stack.some((open) => isSrw(open, 'recordData'))) {
        throw new SruError(`record ${inPage} of the page is an SRU diagnostic: ${message}`);
      }
      diagnostics.push(message);
      return;
    }
    if (tag.uri !== SRW_NS) return;
    if (depth === 1 && tag.local === 'numberOfRecords') {
      numberOfRecords = integer(buffer, 'numberOfRecords');
    } else if (depth === 1 && tag.local === 'nextRecordPosition') {
      nextRecordPosition = integer(buffer, 'nextRecordPosition');
    } else if (depth === 3 && tag.local === 'recordPosition') {
      recordPosition = integer(buffer, 'recordPosition');
    } else if (depth === 3 && tag.local === 'recordPacking' && buffer.trim() !== 'xml') {
      throw new SruError(
        `record ${inPage} of the page is packed as ${JSON.stringify(buffer.trim())}, not as xml`,
      );
    } else if (depth === 2 && tag.local === 'record') {
      if (!pica) throw new SruError(`record ${inPage} of the page holds no PicaPlus-XML record`);
      records.push({ position: recordPosition, ...pica });
    }
  });

  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof SruError) throw error;
    throw new SruError(`the response is not well-formed XML: ${(error as Error).message}`);
  }
  if (diagnostics.length > 0) throw new SruError(`SRU diagnostic ${diagnostics.join('; ')}`);
  if (numberOfRecords === undefined) throw new SruError('the response has no numberOfRecords');
  return { numberOfRecords, nextRecordPosition, records };
}

/** Spaces the start of requests at least 1/rate seconds apart. */
class Pacer {
  private next = 0;
  constructor(private readonly intervalMs: number) {}

  async wait(signal: AbortSignal | undefined): Promise<void> {
    const now = performance.now();
    if (now < this.next) await sleep(this.next - now, undefined, { signal });
    this.next = Math.max(now, this.next) + this.intervalMs;
  }
}

type Attempt =
  | { readonly page: SruPage }
  | { readonly retry: string; readonly retryAfterMs?: number | undefined };

const decoder = new TextDecoder('utf-8', { fatal: true });

/** One request: a page, a reason to try again, or (thrown) a reason to stop. */
async function attempt(url: string, options: SruOptions): Promise<Attempt> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  let body: ArrayBuffer;
  try {
    response = await fetch(url, {
      headers: { 'User-Agent': options.userAgent, Accept: 'application/xml, text/xml' },
      signal,
    });
    body = await response.arrayBuffer();
  } catch (error) {
    if (options.signal?.aborted) throw new SruError('interrupted');
    if (timeout.aborted) return { retry: `no complete answer within ${options.timeoutMs} ms` };
    const cause = (error as Error & { cause?: Error }).cause;
    return { retry: `network error: ${cause?.message ?? (error as Error).message}` };
  }
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  // 429 (RFC 6585 §4) and 503 say when to come back; other 5xx are worth another try.
  if (response.status === 429 || response.status >= 500) {
    return { retry: status, retryAfterMs: retryAfterMs(response.headers.get('retry-after')) };
  }
  if (response.status !== 200) throw new SruError(`${status} for ${url}`);
  let text: string;
  try {
    text = decoder.decode(body);
  } catch {
    throw new SruError(`response to ${url} is not UTF-8`);
  }
  try {
    return { page: parseSearchRetrieveResponse(text) };
  } catch (error) {
    if (error instanceof SruError) throw new SruError(`${error.message} (${url})`);
    throw error;
  }
}

/** Fetches one page, retrying with exponential backoff and jitter. */
async function fetchPage(
  startRecord: number,
  options: SruOptions,
  pacer: Pacer,
): Promise<{ page: SruPage; attempts: number }> {
  const url = searchRetrieveUrl(options, startRecord);
  const backoff = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const maxBackoff = options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS;
  const maxRetryAfter = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  for (let retry = 0; ; retry++) {
    await pacer.wait(options.signal).catch(() => {
      throw new SruError('interrupted');
    });
    const result = await attempt(url, options);
    if ('page' in result) return { page: result.page, attempts: retry + 1 };
    if (retry >= options.retries) {
      throw new SruError(
        `startRecord ${startRecord}: gave up after ${retry + 1} attempts; last: ${result.retry} (${url})`,
      );
    }
    if (result.retryAfterMs !== undefined && result.retryAfterMs > maxRetryAfter) {
      throw new SruError(
        `startRecord ${startRecord}: ${result.retry} asks to wait ${Math.ceil(result.retryAfterMs / 1000)} s, ` +
          `more than ${maxRetryAfter / 1000} s (${url})`,
      );
    }
    // "Equal jitter" (half the doubled delay, plus a random share of the other half) keeps
    // clients that failed together from retrying together, yet still backs off.
    const ceiling = Math.min(maxBackoff, backoff * 2 ** retry);
    const delayMs = Math.max(result.retryAfterMs ?? 0, ceiling / 2 + (Math.random() * ceiling) / 2);
    options.onRetry?.({ startRecord, retry: retry + 1, reason: result.retry, delayMs });
    await sleep(delayMs, undefined, { signal: options.signal }).catch(() => {
      throw new SruError('interrupted');
    });
  }
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
