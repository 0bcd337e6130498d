// The agency's two lists, both `.tsv`, told apart by their first line: the ISIL name list (a
// header "id<TAB>isil<TAB>sigel<TAB>name") and the redirect list of retired ISILs (src/load/lists.ts).
import { readNameList, readRedirectList, sniffList } from '../lists';
import type { RecordReader } from './reader';

export const NAME_LIST: RecordReader<'names'> = {
  format: 'names',
  extensions: ['.tsv'],
  recognise: (file) => sniffList(file) === 'names',
  describes: 'a name list (header "id<TAB>isil<TAB>sigel<TAB>name")',
  records: (file, { baseIri }) => readNameList(file, { baseIri }),
};

export const REDIRECT_LIST: RecordReader<'redirects'> = {
  format: 'redirects',
  extensions: ['.tsv'],
  recognise: (file) => sniffList(file) === 'redirects',
  describes: 'a redirect list (current ISIL<TAB>retired ISIL)',
  records: (file, { baseIri }) => readRedirectList(file, { baseIri }),
};
