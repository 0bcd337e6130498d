// Streaming readers of the agency's two PICA+ forms: normalized PICA+ and PicaPlus-XML.
//
// Both read the file in chunks with `fs.readSync` and yield each record as soon as it is complete,
// so memory stays bounded by the largest record, not the file. A record that is broken inside a
// well-formed file is yielded as a `MalformedPicaRecord` and reading goes on; a file that is not
// well-formed as a whole throws `PicaFileError`, since loading part of it would silently drop every
// institution after the break.
//
// What "well-formed" means for the plain form (decided): UTF-8 text; one record a line, each line
// ended by a newline (0x0A); in a line, an optional header (the lobid export puts the PPN there)
// and then fields, each `tag[/occurrence] ` followed by subfields (0x1F, a code, the value) and
// ended by 0x1E. The file is cut off when it does not end with a newline after its last record:
// the bytes after the last newline are a record that lost its end (a tool that truncates a file
// leaves exactly that). A line that ends inside a field but has its newline is one malformed record.
import fs from 'node:fs';
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { fileHead, Utf8Scanner } from '../../util/utf8';

/** `pica`: normalized PICA+ (`.dat`); `ppxml`: PicaPlus-XML. */
export type PicaForm = 'pica' | 'ppxml';

export interface PicaSubfield {
  readonly code: string;
  readonly value: string;
}

export interface PicaField {
  readonly tag: string;
  readonly occurrence: string | undefined;
  readonly subfields: readonly PicaSubfield[];
}

export interface PicaRecord {
  /** 003@ $0, the record's PPN. */
  readonly id: string | undefined;
  /** Where the record is: `line 3` (plain), `line 120, column 5` (XML: just after its start tag). */
  readonly position: string;
  readonly fields: readonly PicaField[];
}

export interface MalformedPicaRecord {
  readonly malformed: true;
  readonly id: string | undefined;
  readonly position: string;
  readonly reason: string;
}

/** A file that is not well-formed as a whole (XML that does not parse, cut off inside a record, not UTF-8): refused whole. */
export class PicaFileError extends Error {
  constructor(
    readonly file: string,
    readonly position: string,
    readonly reason: string,
  ) {
    super(`${file}: ${position}: ${reason}`);
    this.name = 'PicaFileError';
  }
}

/** The namespace of PicaPlus-XML, as the agency's SRU and OAI-PMH interfaces write it. */
export const PPXML_NAMESPACE = 'http://www.oclcpica.org/xmlns/ppxml-1.0';

const FIELD_SEPARATOR = '\x1e';
const SUBFIELD_SEPARATOR = '\x1f';
/** A PICA+ tag: level digit, two digits, a capital letter or `@` (PICA+ field syntax). */
const TAG = /^[012]\d{2}[A-Z@]$/;
/** `tag[/occurrence] ` at the start of a field of the plain form. */
const FIELD_HEAD = /^([012]\d{2}[A-Z@])(?:\/(\d{2,3}))? /;
const SUBFIELD_CODE = /^[A-Za-z0-9]$/;
const CHUNK_BYTES = 1 << 16;
/** No real record comes near this; a longer line means the file is not normalized PICA+. */
const MAX_LINE_CHARS = 1 << 22;

/** Streams the file's records in bounded memory (reads in chunks); throws PicaFileError. */
export function readPica(
  file: string,
  form: PicaForm,
): Generator<PicaRecord | MalformedPicaRecord> {
  return form === 'pica' ? readPlain(file) : readXml(file);
}

/** Tells the form of a file from its first bytes (`<` … PicaPlus-XML namespace, or 0x1E/0x1F lines), or undefined when it is neither (e.g. RDF/XML). */
export function sniffPica(file: string): PicaForm | undefined {
  const head = fileHead(file, CHUNK_BYTES).replace(/^\uFEFF?\s*/, '');
  // An SRU or OAI-PMH envelope may declare the namespace only on the first record, so the whole
  // first chunk is searched, not only the root element.
  if (head.startsWith('<')) return head.includes(PPXML_NAMESPACE) ? 'ppxml' : undefined;
  const line = head.split('\n', 1)[0]!;
  return line.includes(FIELD_SEPARATOR) && line.includes(SUBFIELD_SEPARATOR) ? 'pica' : undefined;
}

/** The file decoded as UTF-8, chunk by chunk; text that is not UTF-8 is refused with its byte offset. */
function* decodedChunks(file: string): Generator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const fd = fs.openSync(file, 'r');
  try {
    const bytes = Buffer.alloc(CHUNK_BYTES);
    for (;;) {
      const read = fs.readSync(fd, bytes, 0, bytes.length, null);
      let text: string;
      try {
        text = decoder.decode(bytes.subarray(0, read), { stream: read > 0 });
      } catch {
        throw notUtf8(file);
      }
      if (text) yield text;
      if (read === 0) return;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The error for a file the decoder refused, located by a second pass that follows the decoder of
 * the Encoding Standard (WHATWG, §9.1.1 "UTF-8 decoder"), so the offset is where it failed.
 */
function notUtf8(file: string): PicaFileError {
  const fd = fs.openSync(file, 'r');
  try {
    const bytes = Buffer.alloc(CHUNK_BYTES);
    const scanner = new Utf8Scanner();
    let at: number | undefined;
    for (let read; at === undefined && (read = fs.readSync(fd, bytes, 0, bytes.length, null)) > 0;)
      at = scanner.scan(bytes.subarray(0, read));
    return new PicaFileError(
      file,
      `line ${scanner.line}, byte ${at ?? scanner.end() ?? 0}`,
      'not UTF-8 text',
    );
  } finally {
    fs.closeSync(fd);
  }
}

function* readPlain(file: string): Generator<PicaRecord | MalformedPicaRecord> {
  let pending = '';
  let line = 0;
  let records = 0;
  for (const text of decodedChunks(file)) {
    // Only the new text can hold the next newline: a long record is scanned once, not per chunk.
    let end = text.indexOf('\n');
    if (end !== -1) end += pending.length;
    pending += text;
    let start = 0;
    for (; end !== -1; end = pending.indexOf('\n', start)) {
      line++;
      const content = pending.slice(start, pending[end - 1] === '\r' ? end - 1 : end);
      start = end + 1;
      if (content.trim() === '') continue;
      records++;
      yield parseLine(content, line);
    }
    pending = pending.slice(start);
    if (pending.length > MAX_LINE_CHARS)
      throw new PicaFileError(
        file,
        `line ${line + 1}`,
        `a line longer than ${MAX_LINE_CHARS} characters: not normalized PICA+`,
      );
  }
  if (pending.trim() !== '') {
    const id = recordId(pending);
    throw new PicaFileError(
      file,
      `line ${line + 1}, column ${pending.length + 1}`,
      `cut off inside a record${id ? ` (003@ ${id})` : ''}: the file does not end with a newline after its last record`,
    );
  }
  if (records === 0) throw new PicaFileError(file, 'line 1', 'no PICA+ record: the file is empty');
}

/** 003@ $0 of a line, found even when other fields of it are broken. */
function recordId(line: string): string | undefined {
  const match = /(?:^|\x1e)003@ \x1f0([^\x1e\x1f]*)/.exec(line);
  return match?.[1] || undefined;
}

function parseLine(line: string, number: number): PicaRecord | MalformedPicaRecord {
  const position = `line ${number}`;
  const id = recordId(line);
  const malformed = (reason: string): MalformedPicaRecord => ({
    malformed: true,
    id,
    position,
    reason,
  });
  if (!line.endsWith(FIELD_SEPARATOR))
    return malformed('the record ends inside a field (no 0x1E after its last field)');
  const parts = line.slice(0, -1).split(FIELD_SEPARATOR);
  // The header before the first field (the export's padded PPN) carries no subfields.
  let column = 1;
  if (!parts[0]!.includes(SUBFIELD_SEPARATOR)) column += parts.shift()!.length + 1;
  const fields: PicaField[] = [];
  for (const part of parts) {
    const head = FIELD_HEAD.exec(part);
    if (!head || part[head[0].length] !== SUBFIELD_SEPARATOR)
      return malformed(`column ${column}: a field without a PICA+ tag and subfields`);
    const subfields: PicaSubfield[] = [];
    for (const piece of part.slice(head[0].length + 1).split(SUBFIELD_SEPARATOR)) {
      if (!SUBFIELD_CODE.test(piece.charAt(0)))
        return malformed(`column ${column}: field ${head[1]} has a subfield without a code`);
      subfields.push({ code: piece.charAt(0), value: piece.slice(1) });
    }
    fields.push({ tag: head[1]!, occurrence: head[2], subfields });
    column += part.length + 1;
  }
  return fields.length === 0
    ? malformed('a record without fields')
    : checked({ id, position, fields });
}

/** A record both forms must have: an id in 003@ $0. */
function checked(record: PicaRecord): PicaRecord | MalformedPicaRecord {
  return record.id === undefined
    ? {
        malformed: true,
        id: undefined,
        position: record.position,
        reason: 'no record id (003@ $0)',
      }
    : record;
}

interface OpenRecord {
  position: string;
  fields: PicaField[];
  problem: string | undefined;
  field: { tag: string; occurrence: string | undefined; subfields: PicaSubfield[] } | undefined;
  subfield: { code: string; value: string } | undefined;
}

/** A record whose end tag was read: checked, or malformed with why. */
function finished({ position, fields, problem }: OpenRecord): PicaRecord | MalformedPicaRecord {
  const id = fields.find((f) => f.tag === '003@')?.subfields.find((s) => s.code === '0')?.value;
  const reason = problem ?? (fields.length === 0 ? 'a record without fields' : undefined);
  return reason
    ? { malformed: true, id: id || undefined, position, reason }
    : checked({ id: id || undefined, position, fields });
}

function* readXml(file: string): Generator<PicaRecord | MalformedPicaRecord> {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const done: (PicaRecord | MalformedPicaRecord)[] = [];
  let open: OpenRecord | undefined;
  let records = 0;
  let failure: PicaFileError | undefined;
  const where = () => `line ${parser.line}, column ${parser.column + 1}`;
  const attribute = (node: SaxesTagNS, name: string) => node.attributes[name]?.value;

  parser.on('error', (error) => {
    failure ??= new PicaFileError(
      file,
      where(),
      `not well-formed XML: ${error.message.replace(/^\d+:\d+: /, '')}`,
    );
  });
  parser.on('opentag', (node) => {
    if (node.uri !== PPXML_NAMESPACE) return;
    if (node.local === 'record') {
      open = {
        position: where(),
        fields: [],
        problem: open ? 'a record inside a record' : undefined,
        field: undefined,
        subfield: undefined,
      };
    } else if (open && node.local === 'tag') {
      open.field = {
        tag: attribute(node, 'id') ?? '',
        occurrence: attribute(node, 'occ') || undefined,
        subfields: [],
      };
    } else if (open?.field && node.local === 'subf') {
      open.subfield = { code: attribute(node, 'id') ?? '', value: '' };
    }
  });
  const append = (text: string) => {
    if (open?.subfield) open.subfield.value += text;
  };
  parser.on('text', append);
  parser.on('cdata', append);
  parser.on('closetag', (node) => {
    if (!open || node.uri !== PPXML_NAMESPACE) return;
    if (node.local === 'subf' && open.subfield && open.field) {
      if (!SUBFIELD_CODE.test(open.subfield.code))
        open.problem ??= `field ${open.field.tag} has a subfield without a code`;
      open.field.subfields.push(open.subfield);
      open.subfield = undefined;
    } else if (node.local === 'tag' && open.field) {
      const { field } = open;
      open.field = undefined;
      // The export writes the record's number as an empty `tag` before the fields (like the
      // header of the plain form): not a field.
      if (!TAG.test(field.tag) && field.subfields.length === 0) return;
      if (!TAG.test(field.tag)) open.problem ??= `a field without a PICA+ tag ("${field.tag}")`;
      open.fields.push(field);
    } else if (node.local === 'record') {
      done.push(finished(open));
      open = undefined;
      records++;
    }
  });

  for (const text of decodedChunks(file)) {
    parser.write(text);
    if (failure) throw failure;
    yield* done.splice(0);
  }
  parser.close();
  if (failure) throw failure;
  yield* done.splice(0);
  if (records === 0)
    throw new PicaFileError(file, where(), `no PicaPlus-XML record (namespace ${PPXML_NAMESPACE})`);
}
