// Checks one institution's description against the SHACL shapes of the published model
// (queries/shapes.ttl) with a real SHACL engine, and names each defect by its class in the load report.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Quad, Term } from '@rdfjs/types';
import { Parser, Store } from 'n3';
import SHACLValidator from 'rdf-validate-shacl';
import { QUERY_DIR } from '../src/paths';

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
] as const;

export type DefectClass = (typeof DEFECT_CLASSES)[number];

export interface Defect {
  readonly defect: DefectClass;
  /** The node the defect is about: the institution's IRI (every shape targets institutions). */
  readonly focus: string;
  /** What the shape says is wrong, and the offending value when the engine names one. */
  readonly message: string;
}

/** The shapes the service publishes; the same file is served at /shapes.ttl. */
export const SHAPES_FILE = path.join(QUERY_DIR, 'shapes.ttl');

/** The shapes cannot be used: they do not parse, or a shape that reports names no defect class. */
export class ShapesError extends Error {
  override name = 'ShapesError';
}

const SH = 'http://www.w3.org/ns/shacl#';
const TARGETS = ['targetClass', 'targetNode', 'targetSubjectsOf', 'targetObjectsOf'].map(
  (local) => SH + local,
);
const SH_PROPERTY = `${SH}property`;
const OWL_IMPORTS = 'http://www.w3.org/2002/07/owl#imports';
/** Predicates of a shape that are no constraint: a shape with only these reports nothing itself. */
const NOT_CONSTRAINTS = new Set(
  [
    ...['targetClass', 'targetNode', 'targetSubjectsOf', 'targetObjectsOf', 'property', 'path'],
    ...['message', 'severity', 'deactivated', 'name', 'description', 'order', 'group'],
  ].map((local) => SH + local),
);

/** A term as a map key: blank nodes and IRIs never collide. */
const key = (term: Term) => `${term.termType}:${term.value}`;

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
    if (predicate.value === annotation) named.set(key(subject), object.value);
    if (predicate.value === SH_PROPERTY) {
      const list = properties.get(key(subject)) ?? [];
      list.push(object);
      properties.set(key(subject), list);
    }
    if (TARGETS.includes(predicate.value)) reporting.set(key(subject), subject);
    if (predicate.value.startsWith(SH) && !NOT_CONSTRAINTS.has(predicate.value))
      constrained.add(key(subject));
  }

  const classes = new Map<string, DefectClass>();
  const visited = new Set<string>();
  const visit = (shape: Term, inherited: string | undefined): void => {
    if (visited.has(key(shape))) return;
    visited.add(key(shape));
    const own = named.get(key(shape)) ?? inherited;
    if (own !== undefined && !known.has(own))
      throw new ShapesError(
        `shape ${shape.value} names the defect class "${own}", which is none of ${DEFECT_CLASSES.join(', ')}`,
      );
    if (own === undefined && constrained.has(key(shape)))
      throw new ShapesError(`shape ${shape.value} can report a result but names no :defect class`);
    if (own !== undefined) classes.set(key(shape), own as DefectClass);
    for (const property of properties.get(key(shape)) ?? []) visit(property, own);
  };
  for (const shape of reporting.values()) visit(shape, undefined);
  return classes;
}

/**
 * Validates institutions one at a time with rdf-validate-shacl. The shapes are parsed once; each
 * institution's few dozen triples are validated as a graph of their own, so a check never looks
 * at another institution. Every shape targets `foaf:Organization`: triples that type nothing as
 * one have no defects.
 */
export class Validator {
  private readonly engine: SHACLValidator;
  private readonly classes: ReadonlyMap<string, DefectClass>;

  constructor(shapesFile: string = SHAPES_FILE) {
    // The shapes' IRIs are relative: they resolve against where the file is read from.
    const base = pathToFileURL(shapesFile).href;
    let quads: Quad[];
    try {
      quads = new Parser({ format: 'text/turtle', baseIRI: base }).parse(
        fs.readFileSync(shapesFile, 'utf8'),
      );
    } catch (error) {
      throw new ShapesError(`${shapesFile}: ${(error as Error).message}`);
    }
    if (quads.some((q) => q.predicate.value === OWL_IMPORTS))
      throw new ShapesError(
        `${shapesFile}: owl:imports is not supported; keep the shapes in one file`,
      );
    this.classes = defectClasses(quads, `${base}#defect`);
    this.engine = new SHACLValidator(new Store(quads));
  }

  /**
   * The defects of one institution: `ntriples` holds its triples, its blank nodes' and its
   * description's. Throws when the text is not N-Triples (the loader made it, so that is a bug),
   * or when a result comes from a shape without a defect class. Each defect is listed once, even
   * when several constraints of one shape report the same value.
   */
  validate(institutionIri: string, ntriples: string): Defect[] {
    let quads: Quad[];
    try {
      quads = new Parser({ format: 'N-Triples' }).parse(ntriples);
    } catch (error) {
      throw new Error(`${institutionIri}: not N-Triples: ${(error as Error).message}`);
    }
    const { engine } = this;
    // The engine's public `validate` is async only to fetch owl:imports, which these shapes do not
    // use; its validation itself is synchronous, and so is this call.
    engine.$data = engine.factory.clownface({ dataset: new Store(quads) });
    engine.validationEngine.validateAll(engine.$data);
    const report = engine.validationEngine.getReport();

    const defects = new Map<string, Defect>();
    for (const result of report.results) {
      const shape = result.sourceShape;
      const defect = this.classes.get(key(shape));
      if (defect === undefined)
        throw new ShapesError(
          `${institutionIri}: a result of shape ${shape.value} maps to no defect class`,
        );
      const focus = result.focusNode.value;
      const value = result.value as Term | undefined;
      const said = result.message.map((m) => m.value).join('; ');
      const message = value && value.value !== focus ? `${said}: ${value.value}` : said;
      defects.set(`${defect}\n${focus}\n${message}`, { defect, focus, message });
    }
    return [...defects.values()];
  }
}
