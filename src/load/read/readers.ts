// The one list of the formats the loader reads, and what every reader is: its name, the file
// extensions it is chosen by, and how it reads. Record readers turn a file into records, each one
// institution's description (PICA+, PicaPlus-XML, the lists, lobid's lines); RDF readers hand the
// file to the store's own parser (Oxigraph). Adding a format is a reader here and a line in
// READERS: `--format`, detection by extension, and the loading path all follow from the list.
import type { StoreFormat } from '../../store/embedded/datasetStore';
import { LoadError } from '../loadError';
import { malformed, readNameList, readRedirectList, sniffList, type ListKind } from './listRecords';
import { readLobid, sniffLobid } from './lobidRecord';
import { convertRecord } from '../../mapping/pica/convert';
import { readPica, sniffPica, type PicaForm } from '../../mapping/pica/read';
import type { SkippedRecord, SourceRecord } from '../../mapping/sourceRecord';
import { readLinkList, readPositions, sniffLinks } from './wikidata';
import type { LinkRecord, PositionRecord } from './wikidata';

/** What a record reader is told: where IRIs are minted, and labels for each record's blank nodes. */
export interface RecordContext {
  readonly baseIri: string;
  /** A prefix for the blank-node labels of the next record: unique within a batch. */
  readonly blankNodePrefix: () => string;
}

interface ReaderBase<F extends string> {
  /** Its name, as `--format` takes it. */
  readonly format: F;
  /** Lower-case extensions with their dot; one several readers share is told apart by `recognise`. */
  readonly extensions: readonly string[];
  /**
   * Whether `file`, of an extension another reader shares, is this reader's, by its first bytes.
   * A reader without it takes such a file when no other recognises it.
   */
  readonly recognise?: (file: string) => boolean;
  /** What it reads, for the error that names what a shared extension could be. */
  readonly describes: string;
}

export interface RecordReader<F extends string = string> extends ReaderBase<F> {
  /**
   * The file's records, converted, each with its position in `origin`; a file not well-formed as
   * a whole throws (a LoadError, or a PicaFileError the loader places).
   */
  readonly records: (file: string, context: RecordContext) => Iterable<ReadRecord>;
}

/** What a record reader reads: records, the records it skips, and Wikidata's statements. */
export type ReadRecord = SourceRecord | SkippedRecord | LinkRecord | PositionRecord;

export interface RdfReader<F extends StoreFormat = StoreFormat> extends ReaderBase<F> {
  /** Parsed by the store as this format. */
  readonly storeFormat: F;
}

export type Reader = RecordReader | RdfReader;

export function readsRecords(reader: Reader): reader is RecordReader {
  return 'records' in reader;
}

const rdf = <F extends StoreFormat>(
  format: F,
  extensions: readonly string[],
  describes: string,
): RdfReader<F> => ({ format, storeFormat: format, extensions, describes });

/**
 * The RDF formats: the store parses them itself, so each reader only names its format and
 * extensions. RDF/XML shares `.xml` with PicaPlus-XML, and takes what that one does not recognise.
 */
const RDF_READERS = [
  rdf('nt', ['.nt'], 'N-Triples'),
  rdf('nq', ['.nq'], 'N-Quads (and the snapshots this loader writes)'),
  rdf('ttl', ['.ttl'], 'Turtle'),
  rdf('trig', ['.trig'], 'TriG'),
  rdf('rdf', ['.rdf', '.owl', '.xml'], 'RDF/XML'),
  rdf('jsonld', ['.jsonld', '.json'], 'JSON-LD'),
] as const;

/** PICA+ records of one form, read record by record and converted to the published model. */
function* picaRecords(
  file: string,
  form: PicaForm,
  { baseIri, blankNodePrefix }: RecordContext,
): Generator<SourceRecord | SkippedRecord> {
  for (const record of readPica(file, form)) {
    const origin = `${file}, ${record.position}`;
    if ('malformed' in record) yield malformed(origin, record.id, record.reason);
    else yield convertRecord(record, { baseIri, origin, blankNodePrefix: blankNodePrefix() });
  }
}

/** The agency's plain PICA+ export. */
const PICA_PLAIN: RecordReader<'pica'> = {
  format: 'pica',
  extensions: ['.dat', '.pica'],
  describes: 'PICA+ (plain)',
  records: (file, context) => picaRecords(file, 'pica', context),
};

/** PicaPlus-XML, an `.xml` whose first bytes say so (the SRU harvester writes it). */
const PICA_XML: RecordReader<'ppxml'> = {
  format: 'ppxml',
  extensions: ['.xml'],
  recognise: (file) => sniffPica(file) === 'ppxml',
  describes: 'PicaPlus-XML',
  records: (file, context) => picaRecords(file, 'ppxml', context),
};

/** The reader of the agency's list of `format` (`.tsv`), told from the others by its first line. */
function listReader<F extends ListKind>(
  format: F,
  describes: string,
  read: typeof readNameList,
): RecordReader<F> {
  return {
    format,
    extensions: ['.tsv'],
    recognise: (file) => sniffList(file) === format,
    describes,
    records: read,
  };
}

/** The agency's ISIL name list. */
const NAME_LIST = listReader(
  'names',
  'a name list (header "id<TAB>isil<TAB>sigel<TAB>name")',
  readNameList,
);

/** The agency's redirect list of retired ISILs. */
const REDIRECT_LIST = listReader(
  'redirects',
  'a redirect list (current ISIL<TAB>retired ISIL)',
  readRedirectList,
);

/** Wikidata's ISIL lookup (`.tsv` too): links to the same institutions elsewhere, not records. */
const LINK_LIST: RecordReader<'links'> = {
  format: 'links',
  extensions: ['.tsv'],
  recognise: sniffLinks,
  describes:
    'a links source (Wikidata\'s ISIL lookup, header "?item<TAB>?itemLabel<TAB>?isil<TAB>?gndId<TAB>?dbsId")',
  records: readLinkList,
};

/** Wikidata's positions, a GeoJSON query answer: joined to institutions through the links graph. */
const POSITIONS: RecordReader<'positions'> = {
  format: 'positions',
  extensions: ['.geojson'],
  describes: "a positions source (GeoJSON of Wikidata items' points)",
  records: readPositions,
};

/** lobid-organisations' bulk JSON-LD lines: one institution's document a line. */
const LOBID_LINES: RecordReader<'lobid'> = {
  format: 'lobid',
  extensions: ['.jsonl', '.ndjson'],
  recognise: sniffLobid,
  describes: "lobid-organisations' JSON-LD lines",
  records: readLobid,
};

// A reader that recognises its files comes before one of the same extension that does not.
export const READERS = [
  ...RDF_READERS,
  PICA_PLAIN,
  PICA_XML,
  NAME_LIST,
  REDIRECT_LIST,
  LINK_LIST,
  POSITIONS,
  LOBID_LINES,
] as const;
/** Every format the loader reads, by name. */
export type SourceFormat = (typeof READERS)[number]['format'];

export const FORMAT_NAMES: readonly SourceFormat[] = READERS.map((reader) => reader.format);

/** The reader of the format `format`. */
export function readerOf(format: SourceFormat): Reader {
  return READERS.find((reader) => reader.format === format)!;
}

/** Whether the loader reads files with the extension `extension` (lower case, with its dot). */
export function knownExtension(extension: string): boolean {
  return READERS.some((reader) => reader.extensions.includes(extension));
}

/**
 * The format of `file`, of a known extension: the one reader of it (when it tells its files by
 * their first bytes, if it recognises this one), or, where readers share it (`.xml`, `.tsv`), the
 * first that recognises the file by its first bytes, else the one that recognises none (RDF/XML
 * for `.xml`). A file no reader of its extension takes is refused.
 */
export function detect(file: string, extension: string): SourceFormat {
  const candidates = READERS.filter((reader) => reader.extensions.includes(extension));
  const [only] = candidates;
  if (candidates.length === 1 && only!.recognise?.(file) !== false) return only!.format;
  const chosen =
    candidates.find((reader) => reader.recognise?.(file)) ??
    candidates.find((reader) => reader.recognise === undefined);
  if (chosen) return chosen.format;
  const described = candidates.map((reader) => reader.describes);
  throw new LoadError(
    file,
    1,
    1,
    described.length === 1 ? `not ${described[0]!}` : `neither ${described.join(' nor ')}`,
  );
}
