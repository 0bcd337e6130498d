// The LDES and TREE shapes (rorlic/ldes-shacl, rorlic/tree-shacl), fetched by checksum with the
// other third-party files (data/sources.json), used as their source's notes say: each page validated with the lists
// of its kind, the shape files of a list loaded together without their owl:imports, the TREE
// vocabulary's rdfs:subClassOf statements beside the data, with rdf-validate-shacl.
import fs from 'node:fs';
import path from 'node:path';
import { DataFactory, Parser, Store, type Quad } from 'n3';
import { THIRD_PARTY_FOLDER } from '../../src/util/thirdParty';

/** The folder holding `ldes-shacl/` and `tree-shacl/`. */
export const SHAPES_DIR = path.join(THIRD_PARTY_FOLDER, 'conformance');

/** The root page, or any other page of a stream. */
export type PageKind = 'root' | 'subsequent';

const LISTS: Record<PageKind, readonly string[]> = {
  root: [
    'ldes-shacl/build/shapes-common.txt',
    'ldes-shacl/build/shapes-node-root.txt',
    'tree-shacl/build/shapes-common.txt',
    'tree-shacl/build/shapes-node-collection.txt',
    'tree-shacl/build/shapes-node-root.txt',
  ],
  subsequent: [
    'ldes-shacl/build/shapes-common.txt',
    'ldes-shacl/build/shapes-node-subsequent.txt',
    'tree-shacl/build/shapes-common.txt',
    'tree-shacl/build/shapes-node-subsequent.txt',
  ],
};

const TREE = 'https://w3id.org/tree#';
const SUBCLASS_OF = 'http://www.w3.org/2000/01/rdf-schema#subClassOf';
const OWL_IMPORTS = 'http://www.w3.org/2002/07/owl#imports';
/** The relations of the TREE vocabulary (https://w3id.org/tree#), each a tree:Relation. */
const RELATIONS = [
  'PrefixRelation',
  'SubstringRelation',
  'SuffixRelation',
  'GreaterThanRelation',
  'GreaterThanOrEqualToRelation',
  'LessThanRelation',
  'LessThanOrEqualToRelation',
  'EqualToRelation',
  'NotEqualToRelation',
  'GeospatiallyContainsRelation',
  'InBetweenRelation',
];
const { namedNode, quad } = DataFactory;
const VOCABULARY: Quad[] = RELATIONS.map((name) =>
  quad(namedNode(`${TREE}${name}`), namedNode(SUBCLASS_OF), namedNode(`${TREE}Relation`)),
);

/** Whether the shapes are there to be read. */
export const shapesThere = (): boolean => fs.existsSync(path.join(SHAPES_DIR, LISTS.root[0]!));

/** One result of a validation: its severity's local name (Violation, Warning, Info) and message. */
export interface ShapeResult {
  readonly severity: string;
  readonly message: string;
  readonly focus: string;
}

type Validator = { validate(data: Store): Promise<{ results: RawResult[] }> };
interface RawResult {
  readonly severity: { value: string } | null;
  readonly message: readonly { value: string }[];
  readonly focusNode: { value: string } | null;
}

const validators = new Map<PageKind, Promise<Validator>>();

function shapesOf(kind: PageKind): Quad[] {
  const quads: Quad[] = [];
  for (const list of LISTS[kind]) {
    const folder = path.join(SHAPES_DIR, path.dirname(path.dirname(list)));
    const names = fs
      .readFileSync(path.join(SHAPES_DIR, list), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    for (const name of names) {
      const text = fs.readFileSync(path.join(folder, name), 'utf8');
      for (const q of new Parser({ format: 'text/turtle' }).parse(text))
        if (q.predicate.value !== OWL_IMPORTS) quads.push(q);
    }
  }
  return quads;
}

async function validator(kind: PageKind): Promise<Validator> {
  let made = validators.get(kind);
  if (!made) {
    made = (async () => {
      // rdf-validate-shacl is ES modules only.
      const { default: SHACLValidator } = await import('rdf-validate-shacl');
      return new SHACLValidator(new Store(shapesOf(kind))) as unknown as Validator;
    })();
    validators.set(kind, made);
  }
  return made;
}

/** The results of validating a page (TriG as served, read with its URL as base) as `kind`. */
export async function validatePage(
  trig: string,
  url: string,
  kind: PageKind,
): Promise<ShapeResult[]> {
  const data = new Store([
    ...new Parser({ format: 'application/trig', baseIRI: url }).parse(trig),
    ...VOCABULARY,
  ]);
  const report = await (await validator(kind)).validate(data);
  return report.results.map((r) => ({
    severity: (r.severity?.value ?? '').replace('http://www.w3.org/ns/shacl#', ''),
    message: r.message.map((m) => m.value).join('; '),
    focus: r.focusNode?.value ?? '',
  }));
}
