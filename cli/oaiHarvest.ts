// An OAI-PMH 2.0 harvester: ListRecords through every resumption token, politely and with the SRU
// harvest's retries (sru.ts), each answer parsed as it streams in (oaiResponse.ts), into one file
// the loader reads, which replaces the previous one only once the last page is in.
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { OaiError, OaiPageReader, type OaiItem, type OaiPage } from './oaiResponse';
import { fetchWithRetries, Pacer, type BodyReader, type RequestOptions } from './sru';
import { PPXML_NS, xmlAttribute } from './sruResponse';

export { OaiError } from './oaiResponse';

/** The agency's format, and the one the loader converts. */
export const DEFAULT_METADATA_PREFIX = 'PicaPlus-xml';
/** The project's own repository's description format: its records go into one RDF/XML file. */
export const RDF_PREFIX = 'rdf';
/** An answer larger than this is refused: no page of a provider comes near it. */
export const MAX_ANSWER_BYTES = 256 * 1024 * 1024;
/**
 * Pages in a row without a record that a harvest follows: a provider may send a few (a part of
 * its list it filtered out), but one sending fresh tokens forever would hold the harvest for good.
 */
export const MAX_EMPTY_PAGES = 100;

export interface OaiOptions extends RequestOptions {
  /** The OAI-PMH base URL. */
  readonly url: string;
  readonly metadataPrefix: string;
  readonly from?: string | undefined;
  readonly until?: string | undefined;
  readonly set?: string | undefined;
  /** At most this many requests a second, retries included. */
  readonly rate: number;
  readonly out: string;
  readonly quiet?: boolean;
  readonly maxAnswerBytes?: number;
  /** Pages in a row without a record before the provider is taken for looping (MAX_EMPTY_PAGES). */
  readonly maxEmptyPages?: number;
  readonly onRetry?: (event: {
    page: number;
    retry: number;
    reason: string;
    delayMs: number;
  }) => void;
}

export interface OaiPageEvent {
  readonly page: number;
  readonly records: number;
  readonly deleted: number;
  readonly attempts: number;
  readonly ms: number;
  /** Records and deletions harvested so far, and how many the provider says the list has. */
  readonly harvested: number;
  readonly completeListSize: number | undefined;
}

export interface OaiHarvestReport {
  readonly out: string;
  /** Records with metadata, and deletions, written (each identifier's last). */
  readonly records: number;
  readonly deleted: number;
  /** Earlier copies of an identifier that came again later in the list, left out. */
  readonly superseded: number;
  /** The provider answered noRecordsMatch: nothing changed in the window asked for. */
  readonly noRecordsMatch: boolean;
  readonly pages: number;
  readonly requests: number;
  readonly retries: number;
  readonly bytes: number;
  readonly ms: number;
}

/** The ListRecords request of the first page, or of the page a token names (OAI-PMH §4.5). */
export function listRecordsUrl(
  options: Pick<OaiOptions, 'url' | 'metadataPrefix' | 'from' | 'until' | 'set'>,
  token?: string,
): string {
  const url = new URL(options.url);
  const params = url.searchParams;
  params.set('verb', 'ListRecords');
  // resumptionToken is an exclusive argument: it is sent alone.
  if (token !== undefined) params.set('resumptionToken', token);
  else {
    params.set('metadataPrefix', options.metadataPrefix);
    if (options.from !== undefined) params.set('from', options.from);
    if (options.until !== undefined) params.set('until', options.until);
    if (options.set !== undefined) params.set('set', options.set);
  }
  return url.href;
}

/** A page read from the body as it streams in, bounded in size, UTF-8 only. */
function pageReader(options: OaiOptions, page: number): BodyReader<OaiPage> {
  const max = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
  const form = options.metadataPrefix === RDF_PREFIX ? 'rdf' : 'xml';
  return async (response, url) => {
    const reader = new OaiPageReader({ form, nodeIdPrefix: (item) => `p${page}r${item}_` });
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let bytes = 0;
    const decode = (chunk?: Uint8Array): string => {
      try {
        return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
      } catch {
        throw new OaiError(`the answer is not UTF-8`);
      }
    };
    try {
      for await (const chunk of response.body ?? []) {
        bytes += chunk.length;
        if (bytes > max) throw new OaiError(`the answer is larger than ${max} bytes`);
        reader.write(decode(chunk));
      }
      reader.write(decode());
      return reader.end();
    } catch (error) {
      if (error instanceof OaiError) throw new OaiError(`${error.message} (${url})`, error.code);
      throw error;
    }
  };
}

/** A page of the list as the harvest gives it out. */
interface HarvestedPage {
  readonly number: number;
  readonly items: readonly OaiItem[];
  readonly completeListSize: number | undefined;
  readonly attempts: number;
  readonly ms: number;
}

/**
 * Every page of the list, in order, to the page without a token. noRecordsMatch on the first
 * request is an empty list; any other protocol error ends the harvest, a refused token saying so.
 */
export async function* listRecordsPages(options: OaiOptions): AsyncGenerator<HarvestedPage> {
  const pacer = new Pacer(1000 / options.rate);
  const tokens = new Set<string>();
  let token: string | undefined;
  let harvested = 0;
  let empty = 0;
  const maxEmpty = options.maxEmptyPages ?? MAX_EMPTY_PAGES;
  for (let number = 1; ; number++) {
    const began = performance.now();
    const url = listRecordsUrl(options, token);
    const { page, attempts } = await fetchWithRetries(
      url,
      `page ${number}`,
      options,
      pacer,
      pageReader(options, number),
      (event) => options.onRetry?.({ page: number, ...event }),
    );
    if (page.error) {
      const { code, message } = page.error;
      if (code === 'noRecordsMatch' && token === undefined) return;
      if (code === 'badResumptionToken')
        throw new OaiError(
          `page ${number}: the provider refused the resumption token after ${harvested} records ` +
            `(badResumptionToken: ${message || 'no message'}); it may have expired: harvest again (${url})`,
          code,
        );
      throw new OaiError(
        `page ${number}: OAI-PMH error ${code || '(no code)'}: ${message} (${url})`,
        code,
      );
    }
    harvested += page.items.length;
    yield {
      number,
      items: page.items,
      completeListSize: page.completeListSize,
      attempts,
      ms: performance.now() - began,
    };
    if (page.token === undefined) return;
    empty = page.items.length === 0 ? empty + 1 : 0;
    if (empty >= maxEmpty)
      throw new OaiError(
        `page ${number}: the provider sent ${empty} pages in a row without a record, each with a new resumption token; taken for a loop`,
      );
    if (tokens.has(page.token))
      throw new OaiError(
        `page ${number}: the provider sent the resumption token ${JSON.stringify(page.token)} again`,
      );
    tokens.add(page.token);
    token = page.token;
  }
}

const piValue = (value: string): string => xmlAttribute(value).replace(/>/g, '&gt;');

/** The line a deletion is kept as: a processing instruction, which every XML reader passes over. */
export function deletionLine(item: Pick<OaiItem, 'identifier' | 'datestamp'>): string {
  return `<?oai-deleted identifier="${piValue(item.identifier)}" datestamp="${piValue(item.datestamp)}"?>`;
}

/** The file's lines before the records, and after. */
function frame(options: OaiOptions): { head: string; foot: string } {
  const about = [
    ['source', options.url],
    ['metadataPrefix', options.metadataPrefix],
    ...(['from', 'until', 'set'] as const).flatMap((k) =>
      options[k] === undefined ? [] : [[k, options[k]]],
    ),
    ['date', new Date().toISOString()],
  ]
    .map(([k, v]) => ` ${k}="${xmlAttribute(v!)}"`)
    .join('');
  const declaration = '<?xml version="1.0" encoding="UTF-8"?>\n';
  if (options.metadataPrefix === RDF_PREFIX)
    return {
      head: `${declaration}<?oai-harvest${about}?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n`,
      foot: '</rdf:RDF>\n',
    };
  // The PicaPlus-XML namespace declared first, so the loader knows the file from its first line.
  const ppxml =
    options.metadataPrefix === DEFAULT_METADATA_PREFIX ? ` xmlns:ppxml="${PPXML_NS}"` : '';
  return { head: `${declaration}<harvest${ppxml}${about}>\n`, foot: '</harvest>\n' };
}

/** Copies `from` to `to` without the lines whose numbers (from 0) are in `drop`. */
async function withoutLines(from: string, to: string, drop: ReadonlySet<number>): Promise<void> {
  const out = fs.createWriteStream(to, { flags: 'wx' });
  let line = 0;
  for await (const text of createInterface({
    input: fs.createReadStream(from),
    crlfDelay: Infinity,
  })) {
    if (!drop.has(line++) && !out.write(`${text}\n`))
      await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
}

/** The lines of the records and deletions written, and those a later copy supersedes. */
class Lines {
  private readonly lineOf = new Map<string, { line: number; deleted: boolean }>();
  readonly superseded = new Set<number>();
  records = 0;
  deleted = 0;

  constructor(private line: number) {}

  /** The lines of a page's items, noting what they supersede. */
  add(items: readonly OaiItem[]): string {
    let text = '';
    for (const item of items) {
      const before = this.lineOf.get(item.identifier);
      if (before) {
        this.superseded.add(before.line);
        if (before.deleted) this.deleted--;
        else this.records--;
      }
      this.lineOf.set(item.identifier, { line: this.line++, deleted: item.deleted });
      if (item.deleted) this.deleted++;
      else this.records++;
      text += `${item.deleted ? deletionLine(item) : item.xml}\n`;
    }
    return text;
  }
}

/**
 * Harvests into `options.out`: one line a record (its metadata) or deletion, page by page, in a
 * temporary file beside it that replaces `out` once the last page is in; an identifier that comes
 * again later in the list (changed meanwhile) keeps only its last line. On any error the
 * temporary file is removed and `out` is untouched.
 */
export async function harvestOai(
  options: OaiOptions,
  onPage: (page: OaiPageEvent) => void = () => {},
): Promise<OaiHarvestReport> {
  const began = performance.now();
  const out = path.resolve(options.out);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const temporary = `${out}.tmp-${process.pid}-${Date.now().toString(36)}`;
  const deduplicated = `${temporary}.2`;
  const file = await fs.promises.open(temporary, 'wx');
  const { head, foot } = frame(options);
  const lines = new Lines(head.split('\n').length - 1);
  let [pages, requests, bytes, harvested] = [0, 0, 0, 0];
  let noRecordsMatch = true;
  const write = async (text: string): Promise<void> => {
    const buffer = Buffer.from(text, 'utf8');
    for (let offset = 0; offset < buffer.length;)
      offset += (await file.write(buffer, offset)).bytesWritten;
    bytes += buffer.length;
  };
  try {
    await write(head);
    for await (const page of listRecordsPages(options)) {
      noRecordsMatch = false;
      pages++;
      requests += page.attempts;
      const text = lines.add(page.items);
      await write(text);
      harvested += page.items.length;
      onPage({
        page: page.number,
        records: page.items.filter((i) => !i.deleted).length,
        deleted: page.items.filter((i) => i.deleted).length,
        attempts: page.attempts,
        ms: page.ms,
        harvested,
        completeListSize: page.completeListSize,
      });
    }
    await write(foot);
    await file.sync();
    await file.close();
    if (lines.superseded.size > 0) {
      await withoutLines(temporary, deduplicated, lines.superseded);
      fs.renameSync(deduplicated, temporary);
      bytes = fs.statSync(temporary).size;
    }
    fs.renameSync(temporary, out);
  } catch (error) {
    await file.close().catch(() => {});
    fs.rmSync(temporary, { force: true });
    fs.rmSync(deduplicated, { force: true });
    throw error;
  }
  return {
    out,
    records: lines.records,
    deleted: lines.deleted,
    superseded: lines.superseded.size,
    noRecordsMatch,
    pages,
    requests,
    retries: requests - pages,
    bytes,
    ms: performance.now() - began,
  };
}
