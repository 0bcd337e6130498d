// The agency's two lists, both `.tsv`, told apart by their first line: the ISIL name list (a
// header "id<TAB>isil<TAB>sigel<TAB>name") and the redirect list of retired ISILs (src/load/lists.ts).
import { readNameList, readRedirectList, sniffList, type ListKind } from '../lists';
import type { RecordReader } from './reader';

/** The reader of the list of `format`, told from the other by its first line. */
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
    records: (file, { baseIri }) => read(file, { baseIri }),
  };
}

export const NAME_LIST = listReader(
  'names',
  'a name list (header "id<TAB>isil<TAB>sigel<TAB>name")',
  readNameList,
);

export const REDIRECT_LIST = listReader(
  'redirects',
  'a redirect list (current ISIL<TAB>retired ISIL)',
  readRedirectList,
);
