// Test support for the registry's history: a History of several versions built from real loads
// (each version's descriptions as the store serves them, the events by `diff`), and a small
// RFC 6690 link-format parser for TimeMaps.
import { createHash } from 'node:crypto';
import { loadSources } from '../../src/load/loadSources';
import { MemoryHistory } from '../../src/history/memory';
import {
  diff,
  type History,
  type HistoryEvent,
  type InstitutionState,
} from '../../src/history/model';
import { writeTriples } from '../../src/history/text';

/** A version of a test history: the sources it is loaded from, and its time (seconds, UTC). */
export interface TestVersion {
  readonly version: string;
  readonly time: number;
  readonly sources: readonly string[];
}

/** The states of a loaded version and the text of each live institution's description. */
async function statesOf(
  sources: readonly string[],
  baseIri: string,
): Promise<{ states: Map<string, InstitutionState>; texts: Map<string, string> }> {
  const { dataset } = await loadSources(sources, { baseIri });
  const states = new Map<string, InstitutionState>();
  const texts = new Map<string, string>();
  try {
    for (const institution of dataset.institutions()) {
      const text = writeTriples((await dataset.describe(institution)).triples);
      const hash = createHash('sha256').update(text).digest('hex').slice(0, 32);
      states.set(institution.isil, { isil: institution.isil, status: 'live', hash });
      texts.set(hash, text);
    }
    for (const withdrawn of dataset.withdrawnInstitutions()) {
      const successor = withdrawn.successor;
      states.set(withdrawn.isil, {
        isil: withdrawn.isil,
        status: 'withdrawn',
        hash: '',
        ...(successor.kind === 'live' ? { successors: [successor.institution.isil] } : {}),
      });
    }
  } finally {
    dataset.free();
  }
  return { states, texts };
}

/**
 * The history of `versions` (oldest first), each loaded and compared with the one before, as the
 * change log records them; its mementos are the descriptions each version served.
 */
export async function historyOf(
  versions: readonly TestVersion[],
  baseIri: string,
): Promise<History> {
  const events: HistoryEvent[] = [];
  const texts = new Map<string, string>();
  let previous: Map<string, InstitutionState> | undefined;
  for (const { version, time, sources } of versions) {
    const loaded = await statesOf(sources, baseIri);
    for (const [hash, text] of loaded.texts) texts.set(hash, text);
    for (const change of diff(previous, loaded.states)) events.push({ ...change, version, time });
    previous = loaded.states;
  }
  return new MemoryHistory(
    versions.map(({ version, time }) => ({ version, time })),
    events,
    (event) => Promise.resolve(texts.get(event.hash!)!),
  );
}

/** A link of a link-format document (RFC 6690 §2): its target and its attributes. */
export interface ParsedLink {
  readonly target: string;
  readonly attributes: Readonly<Record<string, string>>;
  /** The relation types of `rel`, split at spaces. */
  readonly rels: readonly string[];
}

/**
 * The links of an `application/link-format` body (RFC 6690 §2): `<URI>` followed by
 * `;name=value` or `;name="quoted"` parameters, links separated by commas (a comma inside quotes
 * belongs to the value). Throws on anything else, so that a malformed TimeMap fails its test.
 */
export function parseLinkFormat(text: string): ParsedLink[] {
  const links: ParsedLink[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const fail = (why: string): never => {
    throw new Error(`link-format: ${why} at ${i}: ${JSON.stringify(text.slice(i, i + 30))}`);
  };
  skipSpace();
  while (i < text.length) {
    if (text[i] !== '<') fail('a link starts with <');
    const end = text.indexOf('>', i);
    if (end < 0) fail('no > ends the URI');
    const target = text.slice(i + 1, end);
    i = end + 1;
    const attributes: Record<string, string> = {};
    skipSpace();
    while (text[i] === ';') {
      i++;
      skipSpace();
      const name =
        /^[a-zA-Z0-9!#$&+\-.^_`|~*]+/.exec(text.slice(i))?.[0] ?? fail('a parameter name');
      i += name.length;
      skipSpace();
      let value = '';
      if (text[i] === '=') {
        i++;
        skipSpace();
        if (text[i] === '"') {
          const close = text.indexOf('"', i + 1);
          if (close < 0) fail('an unterminated quoted value');
          value = text.slice(i + 1, close);
          i = close + 1;
        } else {
          value = /^[^;,\s]*/.exec(text.slice(i))![0];
          i += value.length;
        }
      }
      if (name in attributes) fail(`a repeated parameter ${name}`);
      attributes[name] = value;
      skipSpace();
    }
    links.push({ target, attributes, rels: (attributes.rel ?? '').split(/\s+/).filter(Boolean) });
    if (i >= text.length) break;
    if (text[i] !== ',') fail('links are separated by commas');
    i++;
    skipSpace();
  }
  return links;
}
