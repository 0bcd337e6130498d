// PICA+ records in their two forms, the agency's plain export (`.dat`, `.pica`) and PicaPlus-XML
// (`.xml` whose first bytes say so; the SRU harvester writes it): read record by record
// (src/load/read/pica/read.ts) and converted to the published model (src/load/read/pica/convert.ts).
import { convertRecord } from '../pica/convert';
import { readPica, sniffPica, type PicaForm } from '../pica/read';
import type { SkippedRecord, SourceRecord } from '../sourceRecord';
import type { RecordContext, RecordReader } from './reader';

function* picaRecords(
  file: string,
  form: PicaForm,
  { baseIri, blankNodePrefix }: RecordContext,
): Generator<SourceRecord | SkippedRecord> {
  for (const record of readPica(file, form)) {
    const origin = `${file}, ${record.position}`;
    if ('malformed' in record)
      yield { origin, id: record.id, reason: record.reason, kind: 'malformed' };
    else yield convertRecord(record, { baseIri, origin, blankNodePrefix: blankNodePrefix() });
  }
}

export const PICA_PLAIN: RecordReader<'pica'> = {
  format: 'pica',
  extensions: ['.dat', '.pica'],
  describes: 'PICA+ (plain)',
  records: (file, context) => picaRecords(file, 'pica', context),
};

export const PICA_XML: RecordReader<'ppxml'> = {
  format: 'ppxml',
  extensions: ['.xml'],
  recognise: (file) => sniffPica(file) === 'ppxml',
  describes: 'PicaPlus-XML',
  records: (file, context) => picaRecords(file, 'ppxml', context),
};
