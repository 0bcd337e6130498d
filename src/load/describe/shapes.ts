// The SHACL shapes of the published model (queries/shapes.ttl) as the validator uses them: read,
// checked, and each shape that can report mapped to the defect class the load report counts.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DataFactory, Parser, Writer, type BlankNode, type Quad, type Term } from 'n3';
import { QUERY_DIR } from '../../util/paths';
import type { DefectCount } from '../report';

/** The classes the load report counts defects in, in the order it lists them. */
export const DEFECT_CLASSES = [
  'no-name',
  'malformed-isil',
  'description-incomplete',
  'coordinates-missing',
  'coordinates-outside-country',
  'malformed-postcode',
  'email-not-mailto',
  'url-unparseable',
  'not-rdfxml',
] as const;

export type DefectClass = (typeof DEFECT_CLASSES)[number];

export interface Defect {
  readonly defect: DefectClass;
  /** The node the defect is about: the institution's IRI (every shape targets institutions). */
  readonly focus: string;
  /** What the shape says is wrong, and the offending value when the engine names one. */
  readonly message: string;
}

/**
 * The results of the check the workers make beside the shapes: what the RDF/XML document cannot
 * carry (its defect class is `not-rdfxml`). Not a shape's key: those start with a term type.
 */
export const RDF_XML_SHAPE = 'rdfxml';

/** The shapes the service publishes; the same file is served at /shapes.ttl. */
export const SHAPES_FILE = path.join(QUERY_DIR, 'shapes.ttl');

/** The shapes cannot be used: they do not parse, or a shape that reports names no defect class. */
export class ShapesError extends Error {
  override name = 'ShapesError';
}

export const SH = 'http://www.w3.org/ns/shacl#';
export const sh = (local: string): string => SH + local;
const TARGETS = ['targetClass', 'targetNode', 'targetSubjectsOf', 'targetObjectsOf'].map(sh);
const SH_PROPERTY = sh('property');
const OWL_IMPORTS = 'http://www.w3.org/2002/07/owl#imports';
/** Predicates of a shape that are no constraint: a shape with only these reports nothing itself. */
const NOT_CONSTRAINTS = new Set(
  [
    ...['targetClass', 'targetNode', 'targetSubjectsOf', 'targetObjectsOf', 'property', 'path'],
    ...['message', 'severity', 'deactivated', 'name', 'description', 'order', 'group'],
  ].map(sh),
);

/** A term as the key a result names its shape by: blank nodes and IRIs never collide. */
export const shapeKey = (term: Term): string => `${term.termType}:${term.value}`;

/**
 * Each shape that can produce a result at the top of a report, with the defect class it names in
 * the shapes' `:defect` annotation. Those are the shapes with a target and, transitively, their
 * `sh:property` shapes (which inherit the class of their parent unless they name their own).
 * Results of shapes reached through `sh:or`, `sh:not` or `sh:node` are reported under the shape
 * that refers to them, so they need no class.
 */
function defectClasses(quads: readonly Quad[], annotation: string): Map<string, DefectClass> {
  const known = new Set<string>(DEFECT_CLASSES);
  const named = new Map<string, string>();
  const constrained = new Set<string>();
  const properties = new Map<string, Term[]>();
  const reporting = new Map<string, Term>();
  for (const { subject, predicate, object } of quads) {
    if (predicate.value === annotation) named.set(shapeKey(subject), object.value);
    if (predicate.value === SH_PROPERTY) {
      const list = properties.get(shapeKey(subject)) ?? [];
      list.push(object);
      properties.set(shapeKey(subject), list);
    }
    if (TARGETS.includes(predicate.value)) reporting.set(shapeKey(subject), subject);
    if (predicate.value.startsWith(SH) && !NOT_CONSTRAINTS.has(predicate.value))
      constrained.add(shapeKey(subject));
  }

  const classes = new Map<string, DefectClass>();
  const visited = new Set<string>();
  const visit = (shape: Term, inherited: string | undefined): void => {
    if (visited.has(shapeKey(shape))) return;
    visited.add(shapeKey(shape));
    const own = named.get(shapeKey(shape)) ?? inherited;
    if (own !== undefined && !known.has(own))
      throw new ShapesError(
        `shape ${shape.value} names the defect class "${own}", which is none of ${DEFECT_CLASSES.join(', ')}`,
      );
    if (own === undefined && constrained.has(shapeKey(shape)))
      throw new ShapesError(`shape ${shape.value} can report a result but names no :defect class`);
    if (own !== undefined) classes.set(shapeKey(shape), own as DefectClass);
    for (const property of properties.get(shapeKey(shape)) ?? []) visit(property, own);
  };
  for (const shape of reporting.values()) visit(shape, undefined);
  return classes;
}

/** The quads, blank nodes labelled in order of appearance: the same text gives the same labels. */
function relabelled(quads: readonly Quad[]): Quad[] {
  const labels = new Map<string, BlankNode>();
  const label = <T extends Term>(term: T): T | BlankNode => {
    if (term.termType !== 'BlankNode') return term;
    let blank = labels.get(term.value);
    if (!blank) labels.set(term.value, (blank = DataFactory.blankNode(`s${labels.size}`)));
    return blank;
  };
  return quads.map((q) =>
    DataFactory.quad(label(q.subject), q.predicate, label(q.object), q.graph),
  );
}

/** The shapes read from `shapesFile`: each reporting shape's defect class, and the shapes as the
 * engines parse them (N-Triples whose blank-node labels the engines keep, so that a result names
 * its shape by the same key as the classes). Throws a ShapesError when they cannot be used. */
export function readShapes(shapesFile: string): {
  readonly classes: Map<string, DefectClass>;
  readonly ntriples: string;
} {
  // The shapes' IRIs are relative: they resolve against where the file is read from.
  const base = pathToFileURL(shapesFile).href;
  let quads: Quad[];
  try {
    quads = relabelled(
      new Parser({ format: 'text/turtle', baseIRI: base }).parse(
        fs.readFileSync(shapesFile, 'utf8'),
      ),
    );
  } catch (error) {
    throw new ShapesError(`${shapesFile}: ${(error as Error).message}`);
  }
  if (quads.some((q) => q.predicate.value === OWL_IMPORTS))
    throw new ShapesError(
      `${shapesFile}: owl:imports is not supported; keep the shapes in one file`,
    );
  const classes = defectClasses(quads, `${base}#defect`);
  return { classes, ntriples: new Writer({ format: 'N-Triples' }).quadsToString(quads) };
}

/** How many examples of each defect class the load report shows. */
const DEFECT_EXAMPLES = 3;

/** The defects of a load by class, with a few examples of each. */
export function tally(lists: readonly Defect[][]): DefectCount[] {
  const byClass = new Map<DefectClass, { count: number; examples: Defect[] }>();
  for (const defects of lists) {
    for (const defect of defects) {
      const entry = byClass.get(defect.defect) ?? { count: 0, examples: [] };
      entry.count++;
      if (entry.examples.length < DEFECT_EXAMPLES) entry.examples.push(defect);
      byClass.set(defect.defect, entry);
    }
  }
  return [...byClass].map(([defect, { count, examples }]) => ({ defect, count, examples }));
}
