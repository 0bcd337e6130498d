// Reading one SRU 1.1 searchRetrieveResponse (https://www.loc.gov/standards/sru/sru-1-1.html): the
// result count, the next position, and each PicaPlus-XML record exactly as the server sent it,
// standing on its own; diagnostics, for the whole response or in place of a record, are errors.
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { PPXML_NAMESPACE } from '../src/mapping/pica/read';

/** The namespace of PicaPlus-XML records (`recordSchema=PicaPlus-xml`), as the PICA readers know it. */
export const PPXML_NS = PPXML_NAMESPACE;
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

/** A value for an XML attribute in double quotes. */
export function xmlAttribute(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/"/g, '&quot;')
    .replace(/\n/g, '&#10;');
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

interface Open {
  readonly uri: string;
  readonly local: string;
  readonly ns: Readonly<Record<string, string>>;
}

/**
 * The PICA record being copied: where its start tag is, the namespace bindings around it, the
 * prefixes inside it that only those outer bindings declare, and its 003@ $0.
 */
interface Copy {
  readonly depth: number;
  readonly start: number;
  readonly outer: Readonly<Record<string, string>>;
  readonly needed: Set<string>;
  id: string | undefined;
  in003: boolean;
  inId: boolean;
}

/** One response read: the parser's events turned into the page. */
class ResponseReader {
  private readonly parser = new SaxesParser({ xmlns: true, position: true });
  private readonly stack: Open[] = [];
  private readonly records: SruRecord[] = [];
  private readonly diagnostics: string[] = [];
  private numberOfRecords: number | undefined;
  private nextRecordPosition: number | undefined;
  private buffer = '';
  private diagnostic: Record<string, string> = {};
  /** The SRU record being read (counted from 1 in the page), its position and its PICA record. */
  private inPage = 0;
  private recordPosition: number | undefined;
  private pica: { readonly id: string | undefined; readonly xml: string } | undefined;
  private copy: Copy | undefined;

  constructor(private readonly text: string) {
    this.parser.on('xmldecl', (decl) => {
      if (decl.encoding !== undefined && !/^utf-?8$/i.test(decl.encoding))
        throw new SruError(`the response declares encoding ${decl.encoding}; only UTF-8 is read`);
    });
    this.parser.on('opentag', (tag) => this.open(tag));
    this.parser.on('text', (chunk) => (this.buffer += chunk));
    this.parser.on('cdata', (chunk) => (this.buffer += chunk));
    this.parser.on('closetag', (tag) => this.close(tag));
  }

  read(): SruPage {
    try {
      this.parser.write(this.text).close();
    } catch (error) {
      if (error instanceof SruError) throw error;
      throw new SruError(`the response is not well-formed XML: ${(error as Error).message}`);
    }
    if (this.diagnostics.length > 0)
      throw new SruError(`SRU diagnostic ${this.diagnostics.join('; ')}`);
    if (this.numberOfRecords === undefined)
      throw new SruError('the response has no numberOfRecords');
    const { numberOfRecords, nextRecordPosition, records } = this;
    return { numberOfRecords, nextRecordPosition, records };
  }

  private isSrw(open: Open | undefined, local: string): boolean {
    return open !== undefined && open.uri === SRW_NS && open.local === local;
  }

  private boundInCopy(prefix: string): boolean {
    for (let i = this.copy?.depth ?? this.stack.length; i < this.stack.length; i++)
      if (this.stack[i]?.ns[prefix] !== undefined) return true;
    return false;
  }

  private open(tag: SaxesTagNS): void {
    this.buffer = '';
    const depth = this.stack.length;
    if (depth === 0 && (tag.uri !== SRW_NS || tag.local !== 'searchRetrieveResponse'))
      throw new SruError(
        `not an SRU 1.1 searchRetrieveResponse: the document is <${tag.name}> in ${JSON.stringify(tag.uri)}`,
      );
    if (!this.copy && this.isSrw(this.stack[depth - 1], 'recordData')) this.startRecord(tag, depth);
    this.stack.push({ uri: tag.uri, local: tag.local, ns: tag.ns });
    const copy = this.copy;
    if (copy) {
      for (const prefix of prefixesUsed(tag))
        if (!this.boundInCopy(prefix)) copy.needed.add(prefix);
      if (tag.uri === PPXML_NS && tag.local === 'tag' && depth === copy.depth + 2)
        copy.in003 = tag.attributes.id?.value === '003@';
      else if (copy.in003 && tag.uri === PPXML_NS && tag.local === 'subf')
        copy.inId = tag.attributes.id?.value === '0';
    } else if (tag.uri === SRW_NS && tag.local === 'record' && depth === 2) {
      this.inPage++;
      this.recordPosition = undefined;
      this.pica = undefined;
    } else if (tag.uri === DIAGNOSTIC_NS && tag.local === 'diagnostic') this.diagnostic = {};
  }

  /** The first element of a `recordData`: the PICA record to copy, or a diagnostic in its place. */
  private startRecord(tag: SaxesTagNS, depth: number): void {
    if (tag.uri === PPXML_NS && tag.local === 'record' && !this.pica) {
      const outer: Record<string, string> = {};
      for (const open of this.stack) Object.assign(outer, open.ns);
      const start = this.text.lastIndexOf('<', this.parser.position - 1);
      this.copy = {
        depth,
        start,
        outer,
        needed: new Set(),
        id: undefined,
        in003: false,
        inId: false,
      };
    } else if (tag.uri !== DIAGNOSTIC_NS || tag.local !== 'diagnostic') {
      throw new SruError(
        `record ${this.inPage} of the page holds <${tag.name}> in ${JSON.stringify(tag.uri)}, not one PicaPlus-XML record`,
      );
    }
  }

  private close(tag: SaxesTagNS): void {
    this.stack.pop();
    const depth = this.stack.length;
    if (this.copy) return this.closeInCopy(tag, this.copy, depth);
    if (tag.uri === DIAGNOSTIC_NS) return this.closeDiagnostic(tag);
    if (tag.uri === SRW_NS) this.closeSrw(tag, depth);
  }

  private closeInCopy(tag: SaxesTagNS, copy: Copy, depth: number): void {
    if (copy.inId) {
      copy.id ??= this.buffer.trim();
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
          ` ${prefix === '' ? 'xmlns' : `xmlns:${prefix}`}="${xmlAttribute(outer[prefix] ?? '')}"`,
      )
      .join('');
    const nameEnd = copy.start + 1 + tag.name.length;
    const { text, parser } = this;
    this.pica = {
      id: copy.id,
      xml: text.slice(copy.start, nameEnd) + declarations + text.slice(nameEnd, parser.position),
    };
    this.copy = undefined;
  }

  private closeDiagnostic(tag: SaxesTagNS): void {
    if (tag.local !== 'diagnostic') {
      this.diagnostic[tag.local] = this.buffer.trim();
      return;
    }
    const { diagnostic } = this;
    const parts = [diagnostic.message, diagnostic.details].filter((part) => part);
    const message = `${diagnostic.uri ?? '(no uri)'}${parts.length ? `: ${parts.join(' – ')}` : ''}`;
    // A diagnostic in place of a record (a "surrogate diagnostic", SRU 1.1 §8.2) means that
    // record is missing from the harvest.
    if (this.stack.some((open) => this.isSrw(open, 'recordData')))
      throw new SruError(`record ${this.inPage} of the page is an SRU diagnostic: ${message}`);
    this.diagnostics.push(message);
  }

  private closeSrw(tag: SaxesTagNS, depth: number): void {
    const { buffer, inPage } = this;
    if (depth === 1 && tag.local === 'numberOfRecords')
      this.numberOfRecords = integer(buffer, 'numberOfRecords');
    else if (depth === 1 && tag.local === 'nextRecordPosition')
      this.nextRecordPosition = integer(buffer, 'nextRecordPosition');
    else if (depth === 3 && tag.local === 'recordPosition')
      this.recordPosition = integer(buffer, 'recordPosition');
    else if (depth === 3 && tag.local === 'recordPacking' && buffer.trim() !== 'xml')
      throw new SruError(
        `record ${inPage} of the page is packed as ${JSON.stringify(buffer.trim())}, not as xml`,
      );
    else if (depth === 2 && tag.local === 'record') {
      if (!this.pica)
        throw new SruError(`record ${inPage} of the page holds no PicaPlus-XML record`);
      this.records.push({ position: this.recordPosition, ...this.pica });
    }
  }
}

/**
 * Reads one searchRetrieveResponse. Diagnostics (SRU 1.1 §8), for the whole response or in place of
 * a record, are errors with their message; so is anything that is not well-formed or not SRU.
 */
export function parseSearchRetrieveResponse(text: string): SruPage {
  return new ResponseReader(text).read();
}
