// The one list of the formats the loader reads. Adding a format is a module beside this one and a
// line here: `--format`, detection by extension, and the loading path all follow from the list.
import { LoadError } from '../../loadError';
import { LINK_LIST, NAME_LIST, REDIRECT_LIST } from './lists';
import { LOBID_LINES } from './lobid';
import { PICA_PLAIN, PICA_XML } from './pica';
import { POSITIONS } from './positions';
import { RDF_READERS } from './rdf';
import type { Reader } from './reader';

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
