// The embedded Oxigraph store: the only module that imports oxigraph. Everything leaves it as
// strings (N-Triples, N-Quads, SPARQL JSON results), so no WASM object escapes unfreed.
import oxigraph from 'oxigraph';
import { loadQueries, MAX_BLANK_NODE_DEPTH, type CheckedIri, type Queries } from './queries';

/** The parse formats Oxigraph reads, by their short names. */
export type StoreFormat = 'nt' | 'nq' | 'ttl' | 'trig' | 'rdf' | 'jsonld';

export interface SelectBinding {
  readonly [variable: string]:
    { readonly type: string; readonly value: string; readonly datatype?: string } | undefined;
}

/** A line of N-Triples whose object is a blank node: the level below has to be fetched. */
const BLANK_OBJECT = / _:[^ ]+ \.$/m;
/** A line whose subject and object are blank nodes: the first level holds nested ones. */
const BLANK_TO_BLANK = /^_:[^ ]+ <[^>]*> _:[^ ]+ \.$/m;

export class DatasetStore {
  private store: oxigraph.Store | undefined = new oxigraph.Store();

  constructor(private readonly queries: Queries = loadQueries()) {}

  private get live(): oxigraph.Store {
    if (!this.store) throw new Error('the store was freed');
    return this.store;
  }

  get size(): number {
    return this.live.size;
  }

  /**
   * Parses `input` into the default graph. A syntax error throws Oxigraph's message (with line and
   * column where it gives them) and leaves the store as it was. `trusted` skips Oxigraph's checks of
   * IRIs and language tags: only for snapshots this project wrote from checked data.
   */
  load(
    input: string | Uint8Array | Iterable<string | Uint8Array>,
    format: StoreFormat,
    baseIri?: string,
    trusted = false,
  ): void {
    this.live.load(input as string, {
      format,
      ...(baseIri ? { base_iri: baseIri } : {}),
      ...(trusted ? { lenient: true } : {}),
    });
  }

  /** Runs a SPARQL update written by this project (never request input). */
  update(sparql: string): void {
    this.live.update(sparql);
  }

  /** Runs a SELECT or ASK written by this project; returns the SPARQL JSON results. */
  select(sparql: string): SelectBinding[] {
    const json = this.live.query(sparql, { results_format: 'json' }) as string;
    return (JSON.parse(json) as { results: { bindings: SelectBinding[] } }).results.bindings;
  }

  ask(sparql: string): boolean {
    return (
      JSON.parse(this.live.query(sparql, { results_format: 'json' }) as string).boolean === true
    );
  }

  /** Every institution with its name and modification time (queries/institutions.rq). */
  institutions(): SelectBinding[] {
    return this.select(this.queries.institutions.text());
  }

  /**
   * The institution's description as N-Triples (queries/describe.rq), with blank nodes nested
   * below its own fetched level by level as long as a level holds blank-node objects.
   */
  describe(iri: CheckedIri): string {
    let text = this.live.query(this.queries.describe.bind(iri), { results_format: 'nt' }) as string;
    let level = text;
    for (let depth = 2; depth <= MAX_BLANK_NODE_DEPTH && hasNestedBlank(level, depth); depth++) {
      const nested = this.queries.nested[depth - 2]!;
      level = this.live.query(nested.bind(iri), { results_format: 'nt' }) as string;
      text += level;
    }
    return text;
  }

  /** The whole store as N-Quads: the snapshot format. */
  dump(): string {
    return this.live.dump({ format: 'nq' });
  }

  /** Releases the WASM memory now instead of at some later collection. */
  free(): void {
    // Declared by wasm-bindgen on every exported class, missing from the bundled .d.ts.
    (this.store as unknown as { free(): void } | undefined)?.free();
    this.store = undefined;
  }
}

/**
 * Whether a level's triples link a blank node (at `depth` - 1) to another blank node: in the first
 * level, a triple from a blank node to a blank node; in a deeper one, any triple to a blank node.
 */
function hasNestedBlank(ntriples: string, depth: number): boolean {
  return (depth > 2 ? BLANK_OBJECT : BLANK_TO_BLANK).test(ntriples);
}
