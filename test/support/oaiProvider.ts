// A stand-in for the agency's OAI-PMH provider: ListRecords of given records (the real PicaPlus-XML
// ones of the bundled file) and deletions, cut into pages with resumption tokens, filtered by
// from/until, with faults on demand: a status with Retry-After, a refused token, a broken answer.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const OAI_NS = 'http://www.openarchives.org/OAI/2.0/';
const PPXML_NS = 'http://www.oclcpica.org/xmlns/ppxml-1.0';

export interface ProviderItem {
  readonly identifier: string;
  readonly datestamp: string;
  /** The metadata element as text; none: a deleted record. */
  readonly metadata?: string;
}

/** What the n-th request (from 1) is answered with instead of its page. */
export type ProviderFault =
  | { readonly status: number; readonly retryAfter?: string }
  | { readonly oaiError: string; readonly message: string }
  | { readonly body: string };

export interface ProviderOptions {
  readonly items: readonly ProviderItem[];
  readonly pageSize: number;
  readonly faults?: Readonly<Record<number, ProviderFault>>;
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

function envelope(params: URLSearchParams, body: string): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    // The PicaPlus-XML prefix is declared on the envelope only: the harvester must carry it over.
    `<OAI-PMH xmlns="${OAI_NS}" xmlns:ppxml="${PPXML_NS}">\n` +
    `<responseDate>2026-12-02T08:00:00Z</responseDate>\n` +
    `<request verb="${escape(params.get('verb') ?? '')}">http://stand-in/oai</request>\n${body}</OAI-PMH>\n`
  );
}

export const oaiError = (params: URLSearchParams, code: string, message: string) =>
  envelope(params, `<error code="${code}">${escape(message)}</error>\n`);

function record(item: ProviderItem): string {
  const header =
    `<header${item.metadata === undefined ? ' status="deleted"' : ''}>` +
    `<identifier>${escape(item.identifier)}</identifier><datestamp>${item.datestamp}</datestamp>` +
    `<setSpec>bib</setSpec></header>`;
  return `<record>${header}${item.metadata === undefined ? '' : `<metadata>${item.metadata}</metadata>`}</record>\n`;
}

export class OaiProvider {
  readonly requests: { params: URLSearchParams; at: number }[] = [];
  private readonly server = http.createServer((req, res) => this.answer(req, res));

  private constructor(private readonly options: ProviderOptions) {}

  static async start(options: ProviderOptions): Promise<OaiProvider> {
    const provider = new OaiProvider(options);
    await new Promise<void>((resolve) => provider.server.listen(0, '127.0.0.1', resolve));
    return provider;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/oai`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The items a first request's window selects. */
  private selected(params: URLSearchParams): ProviderItem[] {
    const from = params.get('from');
    const until = params.get('until');
    return this.options.items.filter(
      (i) => (!from || i.datestamp >= from) && (!until || i.datestamp <= until),
    );
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const params = new URL(req.url ?? '/', 'http://stand-in').searchParams;
    this.requests.push({ params, at: performance.now() });
    const fault = this.options.faults?.[this.requests.length];
    const xml = { 'Content-Type': 'text/xml;charset=utf-8' };
    if (fault && 'status' in fault) {
      res.writeHead(fault.status, fault.retryAfter ? { 'Retry-After': fault.retryAfter } : {});
      return void res.end('busy\n');
    }
    res.writeHead(200, xml);
    if (fault && 'body' in fault) return void res.end(fault.body);
    if (fault) return void res.end(oaiError(params, fault.oaiError, fault.message));
    // A token names the window and where the next page starts: `<from>|<until>|<offset>`.
    const token = params.get('resumptionToken');
    const [from, until, offset] = token
      ? token.split('|')
      : [params.get('from'), params.get('until'), '0'];
    const window = new URLSearchParams();
    if (from) window.set('from', from);
    if (until) window.set('until', until);
    const items = this.selected(window);
    if (items.length === 0)
      return void res.end(oaiError(params, 'noRecordsMatch', 'nothing in the window'));
    const start = Number(offset);
    const page = items.slice(start, start + this.options.pageSize);
    const next = start + page.length;
    const more = next < items.length;
    const resumption =
      token || more
        ? `<resumptionToken completeListSize="${items.length}" cursor="${start}">` +
          `${more ? escape(`${from ?? ''}|${until ?? ''}|${next}`) : ''}</resumptionToken>\n`
        : '';
    res.end(
      envelope(params, `<ListRecords>\n${page.map(record).join('')}${resumption}</ListRecords>\n`),
    );
  }
}
