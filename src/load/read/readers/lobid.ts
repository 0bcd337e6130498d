// lobid-organisations' bulk JSON-LD lines (`.jsonl`, `.ndjson`): one institution's JSON-LD document
// a line, mapped to the published model by src/load/read/lobidRecord.ts; other JSON Lines are not its.
import { readLobid, sniffLobid } from '../lobidRecord';
import type { RecordReader } from './reader';

export const LOBID_LINES: RecordReader<'lobid'> = {
  format: 'lobid',
  extensions: ['.jsonl', '.ndjson'],
  recognise: sniffLobid,
  describes: "lobid-organisations' JSON-LD lines",
  records: (file, context) => readLobid(file, context),
};
