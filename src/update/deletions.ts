// The deletions an OAI-PMH harvest keeps (cli/oaiHarvest.ts writes each as a line
// `<?oai-deleted identifier="…" datestamp="…"?>`, which every XML reader passes over): the ISILs
// an update removes besides those its records withdraw.
import fs from 'node:fs';
import { isilDefect } from '../rdf/isil';
import { LoadError } from '../load/loadError';
import { chunks } from '../load/reading';

const DELETION = /<\?oai-deleted identifier="([^"]*)"/g;

const unescaped = (value: string) =>
  value
    .replaceAll('&quot;', '"')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

/**
 * The ISIL an OAI-PMH identifier names: what follows `oai:<repository>:` (the form of this
 * service's own identifiers, and of the agency's), or undefined when it names none.
 */
export function isilOfOaiIdentifier(identifier: string): string | undefined {
  const match = /^oai:[^:]+:(.+)$/.exec(identifier);
  const isil = match?.[1];
  return isil !== undefined && isilDefect(isil) === undefined ? isil : undefined;
}

/** The ISILs the deletions of `file` name, in the file's order; a deletion naming none is refused. */
export function deletionsOf(file: string): string[] {
  const found: string[] = [];
  const fd = fs.openSync(file, 'r');
  try {
    let carry = '';
    for (const chunk of chunks(fd)) {
      // Read as Latin-1, one character a byte: the identifier is decoded as UTF-8 once found.
      const text = carry + chunk.toString('latin1');
      const cut = text.lastIndexOf('\n');
      const whole = cut === -1 ? text : text.slice(0, cut);
      carry = cut === -1 ? '' : text.slice(cut + 1);
      for (const [, raw] of whole.matchAll(DELETION)) found.push(named(file, raw!));
    }
    for (const [, raw] of carry.matchAll(DELETION)) found.push(named(file, raw!));
  } finally {
    fs.closeSync(fd);
  }
  return found;
}

function named(file: string, raw: string): string {
  const identifier = Buffer.from(unescaped(raw), 'latin1').toString('utf8');
  const isil = isilOfOaiIdentifier(identifier);
  if (isil === undefined)
    throw new LoadError(
      file,
      undefined,
      undefined,
      `the deletion of ${JSON.stringify(identifier)} names no ISIL (an identifier oai:<repository>:<ISIL> is expected): the update cannot tell which institution it removes`,
    );
  return isil;
}
