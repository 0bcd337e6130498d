// The documents the service offers: one row per format, in the server's order of preference.

export type FormatName = 'html' | 'rdf' | 'ttl' | 'jsonld' | 'nt' | 'n3' | 'trig' | 'nq';
export type RdfFormatName = Exclude<FormatName, 'html'>;

export interface Format {
  readonly name: FormatName;
  /** File extension of the document URL, without the dot. */
  readonly ext: string;
  /** The media type this service names the format by. */
  readonly mediaType: string;
  /** Other media types clients send for the same format (HTTP contract §2). */
  readonly aliases: readonly string[];
  /** The exact `Content-Type` of a 200 (values from the seed where it gives one). */
  readonly contentType: string;
  readonly label: string;
}

/** Table order is the server's preference when q-values tie (HTTP contract §2). */
export const FORMATS: readonly Format[] = [
  {
    name: 'html',
    ext: 'html',
    mediaType: 'text/html',
    aliases: ['application/xhtml+xml'],
    contentType: 'text/html;charset=utf-8',
    label: 'HTML',
  },
  {
    name: 'rdf',
    ext: 'rdf',
    mediaType: 'application/rdf+xml',
    aliases: ['application/xml', 'text/xml'],
    contentType: 'application/rdf+xml;charset=UTF-8',
    label: 'RDF/XML',
  },
  {
    name: 'ttl',
    ext: 'ttl',
    mediaType: 'text/turtle',
    aliases: ['application/x-turtle'],
    contentType: 'text/turtle;charset=UTF-8',
    label: 'Turtle',
  },
  {
    name: 'jsonld',
    ext: 'jsonld',
    mediaType: 'application/ld+json',
    aliases: ['application/json'],
    contentType: 'application/ld+json',
    label: 'JSON-LD',
  },
  {
    name: 'nt',
    ext: 'nt',
    mediaType: 'application/n-triples',
    aliases: ['text/plain'],
    contentType: 'application/n-triples;charset=UTF-8',
    label: 'N-Triples',
  },
  // A description is triples alone: its Turtle is valid N3 and valid TriG (the default graph), its
  // N-Triples valid N-Quads. These are the same bytes under the type the client asked for.
  {
    name: 'n3',
    ext: 'n3',
    mediaType: 'text/n3',
    aliases: [],
    contentType: 'text/n3;charset=UTF-8',
    label: 'N3',
  },
  {
    name: 'trig',
    ext: 'trig',
    mediaType: 'application/trig',
    aliases: [],
    contentType: 'application/trig;charset=UTF-8',
    label: 'TriG',
  },
  {
    name: 'nq',
    ext: 'nq',
    mediaType: 'application/n-quads',
    aliases: [],
    contentType: 'application/n-quads;charset=UTF-8',
    label: 'N-Quads',
  },
];

export const RDF_FORMATS = FORMATS.filter((f) => f.name !== 'html') as readonly (Format & {
  name: RdfFormatName;
})[];

const BY_EXT = new Map(FORMATS.map((f) => [f.ext, f]));

export function formatByExtension(ext: string): Format | undefined {
  return BY_EXT.get(ext);
}

export function formatByName<N extends FormatName>(name: N): Format & { name: N } {
  return FORMATS.find((f) => f.name === name) as Format & { name: N };
}
