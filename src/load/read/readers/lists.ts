// The three lists, all `.tsv`, told apart by their first line: the agency's ISIL name list (a
// header "id<TAB>isil<TAB>sigel<TAB>name") and redirect list of retired ISILs (src/load/read/listRecords.ts),
// and Wikidata's ISIL lookup, a links source (src/load/read/links.ts).
import { readLinkList, sniffLinks } from '../links';
import { readNameList, readRedirectList, sniffList, type ListKind } from '../listRecords';
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

/** Wikidata's ISIL lookup: links to the same institutions elsewhere, not records (../links.ts). */
export const LINK_LIST: RecordReader<'links'> = {
  format: 'links',
  extensions: ['.tsv'],
  recognise: sniffLinks,
  describes:
    'a links source (Wikidata\'s ISIL lookup, header "?item<TAB>?itemLabel<TAB>?isil<TAB>?gndId<TAB>?dbsId")',
  records: (file) => readLinkList(file),
};
