// The agency's institution types (PICA+ 035E $f) as the documents name them, by the term of lobid's
// vocabulary of library types (http://purl.org/lobid/libtype, `dcterms:type libtype:n60`): their
// labels are those of our code list (vocab/code-lists.ttl, served at /vocab/institution-types),
// and the kind of institution each means for the search's facet and the page's schema.org type.
// A term the list does not know means no kind at all: it is never taken for another.
import { codesOf } from './codeLists';

export const LIBTYPE = 'http://purl.org/lobid/libtype#';

export interface LibType {
  readonly code: string;
  readonly de: string;
  readonly en: string;
  /** The kind the search's facet and the page's schema.org type take it for, if any. */
  readonly kind: 'library' | 'archive' | 'museum' | 'other' | undefined;
}

/** The kind of each type: the libraries, archives and museums; every other code is `other`. */
const LIBRARIES = ['11', '15', '21', '33', '34', '36', '39', '60', '65', '70', '73', '81'];
const ARCHIVES = ['51', '52', '53', '54', '55', '56', '57', '58', '59'];
/** `00`, a type not stated (the format of 16 September 2025), says nothing of the kind. */
const NO_KIND = ['00'];

function kindOf(code: string): LibType['kind'] {
  if (LIBRARIES.includes(code)) return 'library';
  if (ARCHIVES.includes(code)) return 'archive';
  if (code === '86') return 'museum';
  return NO_KIND.includes(code) ? undefined : 'other';
}

/** Every type of the code list, by its lobid term. */
export const LIBTYPES: ReadonlyMap<string, LibType> = new Map(
  [...codesOf('institution-types').values()].map(({ code, de, en }) => [
    `${LIBTYPE}n${code}`,
    { code, de, en, kind: kindOf(code) },
  ]),
);

/** Whether `term` is a term of lobid's vocabulary that names no type of the code list. */
export const unknownLibType = (term: string): boolean =>
  term.startsWith(LIBTYPE) && !LIBTYPES.has(term);
