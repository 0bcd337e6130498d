// Reading one OAI-PMH 2.0 ListRecords response (https://www.openarchives.org/OAI/openarchivesprotocol.html)
// as it streams in: each record's header and its metadata written again as XML that stands on its
// own on one line, the resumption token, and the protocol's errors.
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { SruError, xmlAttribute } from './sruResponse';

export const OAI_NS = 'http://www.openarchives.org/OAI/2.0/';
export const RDF_NS = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

/** A harvest that cannot go on for what the provider answered. */
export class OaiError extends SruError {
  override name = 'OaiError';
  /** The OAI-PMH error code (§3.6), when the provider gave one. */
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** One record of a page: a deletion, or its metadata as XML. */
export interface OaiItem {
  readonly identifier: string;
  readonly datestamp: string;
  readonly deleted: boolean;
  /**
   * The metadata's element, or with `rdf` the children of its `rdf:RDF`, written again on one
   * line, declaring the namespaces it took from around it.
   */
  readonly xml: string;
}

export interface OaiPage {
  readonly items: readonly OaiItem[];
  /** The token of the next request; undefined on the last page. */
  readonly token: string | undefined;
  readonly completeListSize: number | undefined;
  /** The protocol error the provider answered with instead (§3.6). */
  readonly error: { readonly code: string; readonly message: string } | undefined;
}

/**
 * How the metadata is taken: `xml`, the metadata's element; `rdf`, the children of its `rdf:RDF`
 * (to go into one RDF/XML document), their `rdf:nodeID`s made unique with `nodeIdPrefix`.
 */
export interface ReadOptions {
  readonly form: 'xml' | 'rdf';
  readonly nodeIdPrefix: (item: number) => string;
}

const text = (value: string): string =>
  value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r/g, '&#13;')
    .replace(/\n/g, '&#10;');

const attribute = (value: string): string =>
  xmlAttribute(value).replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');

/** The metadata being written again: where it starts and the prefixes only its context declares. */
interface Copy {
  readonly depth: number;
  readonly outer: Readonly<Record<string, string>>;
  readonly needed: Set<string>;
  readonly parts: string[];
}

/** One response read, chunk by chunk, into its page. */
export class OaiPageReader {
  private readonly parser = new SaxesParser({ xmlns: true });
  private readonly stack: { uri: string; local: string; ns: Record<string, string> }[] = [];
  private readonly items: OaiItem[] = [];
  private buffer = '';
  private header: { identifier?: string; datestamp?: string; deleted: boolean } | undefined;
  private metadata: string[] = [];
  private copy: Copy | undefined;
  private token: string | undefined;
  private completeListSize: number | undefined;
  private error: { code: string; message: string } | undefined;
  private verbSeen = false;

  constructor(private readonly options: ReadOptions) {
    this.parser.on('xmldecl', (decl) => {
      if (decl.encoding !== undefined && !/^utf-?8$/i.test(decl.encoding))
        throw new OaiError(`the response declares encoding ${decl.encoding}; only UTF-8 is read`);
    });
    this.parser.on('opentag', (tag) => this.open(tag));
    this.parser.on('text', (chunk) => this.characters(chunk));
    this.parser.on('cdata', (chunk) => this.characters(chunk));
    this.parser.on('closetag', (tag) => this.close(tag));
  }

  write(chunk: string): void {
    this.guard(() => this.parser.write(chunk));
  }

  end(): OaiPage {
    this.guard(() => this.parser.close());
    if (!this.error && !this.verbSeen)
      throw new OaiError('the response holds neither ListRecords nor an OAI-PMH error');
    const { items, token, completeListSize, error } = this;
    return { items, token, completeListSize, error };
  }

  private guard(work: () => void): void {
    try {
      work();
    } catch (error) {
      if (error instanceof SruError) throw error;
      throw new OaiError(`the response is not well-formed XML: ${(error as Error).message}`);
    }
  }

  private characters(chunk: string): void {
    if (this.copy) this.copy.parts.push(text(chunk));
    else this.buffer += chunk;
  }

  private isOai(depth: number, local: string): boolean {
    const open = this.stack[depth];
    return open !== undefined && open.uri === OAI_NS && open.local === local;
  }

  private open(tag: SaxesTagNS): void {
    const depth = this.stack.length;
    this.stack.push({ uri: tag.uri, local: tag.local, ns: tag.ns });
    this.buffer = '';
    if (this.copy) return this.copyOpen(tag, this.copy);
    if (depth === 0 && (tag.uri !== OAI_NS || tag.local !== 'OAI-PMH'))
      throw new OaiError(
        `not an OAI-PMH response: the document is <${tag.name}> in ${JSON.stringify(tag.uri)}`,
      );
    if (tag.uri !== OAI_NS) {
      if (depth === 4 && this.isOai(3, 'metadata')) this.startMetadata(tag, depth);
      else if (depth === 5 && this.options.form === 'rdf' && this.isOai(3, 'metadata'))
        this.startCopy(tag, depth);
      return;
    }
    if (depth === 1 && tag.local === 'ListRecords') this.verbSeen = true;
    else if (depth === 1 && tag.local === 'error')
      this.error = { code: tag.attributes.code?.value ?? '', message: '' };
    else if (depth === 2 && tag.local === 'record') {
      this.header = undefined;
      this.metadata = [];
    } else if (depth === 3 && tag.local === 'header')
      this.header = { deleted: tag.attributes.status?.value === 'deleted' };
    else if (depth === 2 && tag.local === 'resumptionToken') {
      const size = tag.attributes.completeListSize?.value;
      if (size !== undefined && /^\d+$/.test(size)) this.completeListSize = Number(size);
    }
  }

  /** The metadata's element: copied, or in the `rdf` form, an `rdf:RDF` whose children are. */
  private startMetadata(tag: SaxesTagNS, depth: number): void {
    if (this.options.form === 'xml') return this.startCopy(tag, depth);
    if (tag.uri !== RDF_NS || tag.local !== 'RDF')
      throw new OaiError(
        `record ${this.items.length + 1} of the page holds <${tag.name}> in ${JSON.stringify(tag.uri)}, not RDF/XML`,
      );
  }

  private startCopy(tag: SaxesTagNS, depth: number): void {
    const outer: Record<string, string> = {};
    for (const open of this.stack.slice(0, depth)) Object.assign(outer, open.ns);
    this.copy = { depth, outer, needed: new Set(), parts: [] };
    this.copyOpen(tag, this.copy);
  }

  private boundInCopy(prefix: string, copy: Copy): boolean {
    for (let i = copy.depth; i < this.stack.length; i++)
      if (this.stack[i]?.ns[prefix] !== undefined) return true;
    return false;
  }

  private copyOpen(tag: SaxesTagNS, copy: Copy): void {
    const used = [tag.prefix];
    let attributes = '';
    for (const a of Object.values(tag.attributes)) {
      let value = a.value;
      if (a.uri === RDF_NS && a.local === 'nodeID')
        value = `${this.options.nodeIdPrefix(this.items.length)}${value}`;
      attributes += ` ${a.name}="${attribute(value)}"`;
      if (a.prefix !== '' && a.prefix !== 'xmlns' && a.prefix !== 'xml') used.push(a.prefix);
    }
    for (const prefix of used) if (!this.boundInCopy(prefix, copy)) copy.needed.add(prefix);
    // The place of the declarations the copy needs from its context, filled when it ends.
    if (this.stack.length - 1 === copy.depth) copy.parts.push(`<${tag.name}`, '', attributes);
    else copy.parts.push(`<${tag.name}${attributes}`);
    copy.parts.push(tag.isSelfClosing ? '/>' : '>');
  }

  private close(tag: SaxesTagNS): void {
    const depth = this.stack.length - 1;
    const copy = this.copy;
    if (copy) {
      if (!tag.isSelfClosing) copy.parts.push(`</${tag.name}>`);
      this.stack.pop();
      if (depth === copy.depth) this.endCopy(copy);
      return;
    }
    this.stack.pop();
    if (tag.uri !== OAI_NS) return;
    const value = this.buffer.trim();
    if (depth === 1 && tag.local === 'error' && this.error) this.error.message = value;
    else if (depth === 4 && this.header && tag.local === 'identifier')
      this.header.identifier = value;
    else if (depth === 4 && this.header && tag.local === 'datestamp') this.header.datestamp = value;
    else if (depth === 2 && tag.local === 'resumptionToken') this.token = value || undefined;
    else if (depth === 2 && tag.local === 'record') this.endRecord();
  }

  private endCopy(copy: Copy): void {
    const declarations = [...copy.needed]
      .filter((prefix) => copy.outer[prefix] !== undefined && copy.outer[prefix] !== '')
      .map(
        (prefix) =>
          ` ${prefix === '' ? 'xmlns' : `xmlns:${prefix}`}="${attribute(copy.outer[prefix] ?? '')}"`,
      )
      .join('');
    copy.parts[1] = declarations;
    this.metadata.push(copy.parts.join(''));
    this.copy = undefined;
  }

  private endRecord(): void {
    const n = this.items.length + 1;
    const header = this.header;
    if (!header?.identifier || !header.datestamp)
      throw new OaiError(`record ${n} of the page has no header with identifier and datestamp`);
    const { identifier, datestamp, deleted } = header;
    if (!deleted && this.metadata.length === 0)
      throw new OaiError(`record ${n} of the page (${identifier}) has no metadata`);
    this.items.push({ identifier, datestamp, deleted, xml: deleted ? '' : this.metadata.join('') });
  }
}
