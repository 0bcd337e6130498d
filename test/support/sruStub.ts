// A stand-in for the DNB's SRU 1.1 interface, which tests cannot reach: it serves real records in
// searchRetrieveResponse pages, logs every request, and fails on demand.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const SRW_NS = 'http://www.loc.gov/zing/srw/';
const PPXML_NS = 'http://www.oclcpica.org/xmlns/ppxml-1.0';

/** What the stub answers instead of the page, once per request it is given for. */
export type Fault =
  | { readonly status: number; readonly retryAfter?: string }
  /** A 200 response with a diagnostic instead of records (DNB's own example). */
  | { readonly diagnostic: { uri: string; details: string; message: string } }
  /** A 200 response with this body. */
  | { readonly body: string | Buffer }
  /** The right page, but claiming another numberOfRecords. */
  | { readonly numberOfRecords: number }
  /** No answer at all. */
  | 'hang';

export interface StubRequest {
  readonly params: URLSearchParams;
  readonly userAgent: string | undefined;
  /** `performance.now()` when the request arrived. */
  readonly at: number;
}

export interface SruStubOptions {
  /** The `<ppxml:record>` elements to serve, in order, as text. */
  readonly records: readonly string[];
  /** Faults by startRecord, used up one per request for that startRecord. */
  readonly faults?: Readonly<Record<number, readonly Fault[]>>;
  /** A fault for every request. */
  readonly always?: Fault;
}

function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The SRU 1.1 envelope: `ppxml` is declared on the root, as a record may rely on it. */
function envelope(body: string): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<searchRetrieveResponse xmlns="${SRW_NS}" xmlns:ppxml="${PPXML_NS}">\n` +
    `  <version>1.1</version>\n${body}</searchRetrieveResponse>\n`
  );
}

export function diagnosticResponse(uri: string, details: string, message: string): string {
  return envelope(
    `  <numberOfRecords>0</numberOfRecords>\n  <diagnostics>\n` +
      `    <diag:diagnostic xmlns:diag="http://www.loc.gov/zing/srw/diagnostic/">\n` +
      `      <diag:uri>${escapeText(uri)}</diag:uri>\n` +
      `      <diag:details>${escapeText(details)}</diag:details>\n` +
      `      <diag:message>${escapeText(message)}</diag:message>\n` +
      `    </diag:diagnostic>\n  </diagnostics>\n`,
  );
}

/** One page of `records` from `start` (1-based), as SRU 1.1 §4.2 lays it out. */
export function pageResponse(
  records: readonly string[],
  start: number,
  maximum: number,
  query: string,
  numberOfRecords = records.length,
): string {
  const page = records.slice(start - 1, start - 1 + maximum);
  const next = start + page.length;
  const items = page
    .map(
      (record, i) =>
        `    <record>\n      <recordSchema>PicaPlus-xml</recordSchema>\n` +
        `      <recordPacking>xml</recordPacking>\n      <recordData>${record}</recordData>\n` +
        `      <recordPosition>${start + i}</recordPosition>\n    </record>\n`,
    )
    .join('');
  return envelope(
    `  <numberOfRecords>${numberOfRecords}</numberOfRecords>\n  <records>\n${items}  </records>\n` +
      (next <= numberOfRecords ? `  <nextRecordPosition>${next}</nextRecordPosition>\n` : '') +
      `  <echoedSearchRetrieveRequest><version>1.1</version><query>${escapeText(query)}</query>` +
      `<maximumRecords>${maximum}</maximumRecords><recordSchema>PicaPlus-xml</recordSchema>` +
      `</echoedSearchRetrieveRequest>\n`,
  );
}

export class SruStub {
  readonly requests: StubRequest[] = [];
  private readonly server: http.Server;
  private readonly pending = new Map<number, Fault[]>();

  private constructor(private readonly options: SruStubOptions) {
    for (const [start, faults] of Object.entries(options.faults ?? {})) {
      this.pending.set(Number(start), [...faults]);
    }
    this.server = http.createServer((request, response) => this.answer(request, response));
  }

  static async start(options: SruStubOptions): Promise<SruStub> {
    const stub = new SruStub(options);
    await new Promise<void>((resolve) => stub.server.listen(0, '127.0.0.1', resolve));
    return stub;
  }

  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/sru/bib`;
  }

  /** The startRecord of each request, in the order they came. */
  get starts(): number[] {
    return this.requests.map((r) => Number(r.params.get('startRecord')));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(request: http.IncomingMessage, response: http.ServerResponse): void {
    const params = new URL(request.url ?? '/', 'http://stub').searchParams;
    this.requests.push({ params, userAgent: request.headers['user-agent'], at: performance.now() });
    const start = Number(params.get('startRecord') ?? '1');
    const maximum = Number(params.get('maximumRecords') ?? '10');
    const fault = this.options.always ?? this.pending.get(start)?.shift();
    const xml = { 'Content-Type': 'text/xml;charset=UTF-8' };
    if (fault === 'hang') return;
    if (fault === undefined || 'numberOfRecords' in fault) {
      response.writeHead(200, xml);
      const query = params.get('query') ?? '';
      response.end(
        pageResponse(this.options.records, start, maximum, query, fault?.numberOfRecords),
      );
    } else if ('status' in fault) {
      response.writeHead(fault.status, fault.retryAfter ? { 'Retry-After': fault.retryAfter } : {});
      response.end(`stub: ${fault.status}\n`);
    } else if ('diagnostic' in fault) {
      const { uri, details, message } = fault.diagnostic;
      response.writeHead(200, xml);
      response.end(diagnosticResponse(uri, details, message));
    } else {
      response.writeHead(200, xml);
      response.end(fault.body);
    }
  }
}
