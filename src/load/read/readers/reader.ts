// What every reader of a source format is: its name, the file extensions it is chosen by, and how
// it reads. Record readers turn a file into records, each one institution's description (PICA+,
// PicaPlus-XML, the lists); RDF readers hand the file to the store's own parser (Oxigraph).
import type { StoreFormat } from '../../../store/embedded/datasetStore';
import type { LinkRecord } from '../links';
import type { SkippedRecord, SourceRecord } from '../sourceRecord';
import type { PositionRecord } from '../wikidataPositions';

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
  readonly records: (
    file: string,
    context: RecordContext,
  ) => Iterable<SourceRecord | SkippedRecord | LinkRecord | PositionRecord>;
}

export interface RdfReader<F extends StoreFormat = StoreFormat> extends ReaderBase<F> {
  /** Parsed by the store as this format. */
  readonly storeFormat: F;
}

export type Reader = RecordReader | RdfReader;

export function readsRecords(reader: Reader): reader is RecordReader {
  return 'records' in reader;
}
