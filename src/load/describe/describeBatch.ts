// What the describe stage does to each description, in this thread or in the pool's
// (describePool.ts): its triples labelled canonically, ordered and hashed, its snapshot lines made,
// and its triples checked against the shapes (queries/shapes.ttl, compiled: compiledShapes.ts).
import type { Quad } from 'n3';
import { stateOf } from '../../history/canonical';
import type { InstitutionState } from '../../history/model';
import { writeTriples } from '../../history/text';
import { CanonicalLimit, labelBlankNodes, orderedDescription } from '../../rdf/description';
import { quadsOfTriples, splitWrittenNTriples, type Triple } from '../../rdf/ntriples';
import { PREFIXES } from '../../rdf/namespaces';
import { literalDefect, predicateDefect } from '../../rdf/rdfxml';
import { LoadError } from '../loadError';
import type { Shapes, WireResult } from './compiledShapes';
import type { TextQuad } from './restLabels';
import { RDF_XML_SHAPE, ShapesError, type Defect, type DefectClass } from './shapes';

const SAME_AS = `<${PREFIXES.owl}sameAs>`;

/** A description to read: its institution, and the graph that holds it. */
export interface Subject {
  readonly isil: string;
  readonly iri: string;
  readonly live: boolean;
  readonly graph: string;
}

/** One description, as the canonical reading hands it over. */
export interface DescriptionJob {
  readonly subject: Subject;
  /** Its number in ISIL order: its labels in the snapshot are `_:d<n>b<i>`. */
  readonly n: number;
  /** Its graph's triples as N-Triples, as the store writes them. */
  readonly own: string;
  /** The institution's links from the links graph, if any. */
  readonly linked: readonly Triple[] | undefined;
  /** Its blank nodes (as the store labels them) that the rest names again. */
  readonly shared: readonly string[];
  /** Whether the shapes check it. */
  readonly validate: boolean;
}

/** One description made canonical, and what the shapes found in it. */
export interface DescribedResult {
  /** Its snapshot lines (`s p o g .`), without the links it lacks. */
  readonly lines: string[];
  /** Its labels the rest names again: no chunk mark until their lines are past. */
  readonly later: string[];
  /** Each shared blank node with the label it got in the snapshot. */
  readonly anchors: [string, string][];
  /** Its canonical text with its links. */
  readonly text: string;
  readonly state: InstitutionState;
  /** Undefined unless the job asked for validation. */
  readonly defects: Defect[] | undefined;
}

/** A batch of descriptions of one dataset. */
export interface DescribeBatch {
  readonly baseIri: string;
  readonly jobs: readonly DescriptionJob[];
}

/** Each description of `batch` made canonical and, where asked, validated with `shapes`. */
export function describeBatch(
  { baseIri, jobs }: DescribeBatch,
  shapes: Shapes | undefined,
): DescribedResult[] {
  return jobs.map((job) => described(job, baseIri, shapes));
}

function described(job: DescriptionJob, baseIri: string, shapes: Shapes | undefined) {
  const { subject, n, shared } = job;
  const { isil, iri, live, graph } = subject;
  const own = quadsNamed(job.own, subject);
  const labels = labelled(own, isil, iri);
  const prefix = `_:d${n}`;
  const later = new Set<string>();
  const anchors: [string, string][] = [];
  if (shared.length > 0) {
    const named = new Set(shared);
    own.forEach((q, k) => {
      for (const [term, label] of [
        [q.s, labels[k]!.s],
        [q.o, labels[k]!.o],
      ] as const)
        if (named.has(term)) {
          anchors.push([term, `${prefix}${label.slice(2)}`]);
          later.add(`${prefix}${label.slice(2)}`);
        }
    });
  }
  // Ordered once, with the links: the graph's own lines are those but the links it lacks.
  const links = linksBeyond(own, job.linked);
  const { triples } = orderedDescription(iri, links ? [...labels, ...links] : labels);
  const snapshotLines: string[] = [];
  for (const t of triples)
    if (!links?.includes(t))
      snapshotLines.push(`${local(t.s, prefix)} ${t.p} ${local(t.o, prefix)} ${graph} .`);
  const text = writeTriples(triples);
  const defects = job.validate && shapes ? defectsOf(shapes, iri, triples) : undefined;
  return {
    lines: snapshotLines,
    later: [...later],
    anchors,
    text,
    state: stateOf(isil, iri, live, text, baseIri),
    defects,
  };
}

/**
 * A description's quads, read by position as the store writes them; text in any other shape is
 * read by the grammar, and what breaks it is an error naming the institution.
 */
function quadsNamed(text: string, { iri, graph }: Subject): TextQuad[] {
  try {
    return splitWrittenNTriples(text).map(({ s, p, o }) => ({ s, p, o, g: graph }));
  } catch (error) {
    throw new Error(`${iri}: not N-Triples: ${(error as Error).message}`);
  }
}

/** A description's triples labelled canonically; past the work limit, a LoadError naming its ISIL. */
function labelled(own: readonly TextQuad[], isil: string, iri: string): Triple[] {
  try {
    return labelBlankNodes(own, iri);
  } catch (error) {
    if (!(error instanceof CanonicalLimit)) throw error;
    throw new LoadError(isil, undefined, undefined, error.message);
  }
}

/** What the shapes find in one institution's triples. */
export function defectsOf(shapes: Shapes, iri: string, triples: readonly Triple[]): Defect[] {
  const quads = quadsOfTriples(triples);
  return defectsFrom(shapes.classes, iri, [...shapes.check(quads), ...rdfXmlResults(quads)]);
}

/**
 * An institution's results named by their shapes' defect classes, each defect listed once, even
 * when several constraints of one shape report the same value. A result of a shape without a
 * class is a ShapesError (readShapes refuses such shapes, so that is a bug).
 */
export function defectsFrom(
  classes: ReadonlyMap<string, DefectClass>,
  iri: string,
  results: readonly WireResult[],
): Defect[] {
  const defects = new Map<string, Defect>();
  for (const { shape, focus, value, message: said } of results) {
    const defect = shape === RDF_XML_SHAPE ? 'not-rdfxml' : classes.get(shape);
    if (defect === undefined)
      throw new ShapesError(`${iri}: a result of shape ${shape} maps to no defect class`);
    const message =
      value !== undefined && value !== focus ? `${said.join('; ')}: ${value}` : said.join('; ');
    const node = focus === '' ? iri : focus;
    defects.set(`${defect}\n${node}\n${message}`, { defect, focus: node, message });
  }
  return [...defects.values()];
}

/** What the RDF/XML document could not carry: results of RDF_XML_SHAPE, about the institution. */
export function rdfXmlResults(quads: readonly Quad[]): WireResult[] {
  const results: WireResult[] = [];
  const result = (value: string | undefined, message: string) =>
    results.push({ shape: RDF_XML_SHAPE, focus: '', value, message: [message] });
  for (const quad of quads) {
    const predicate = quad.predicate.value;
    const unwritable = predicateDefect(predicate);
    if (unwritable) result(undefined, `the RDF/XML document cannot be written: ${unwritable}`);
    const literal = quad.object.termType === 'Literal' && literalDefect(quad.object.value);
    if (literal)
      result(predicate, `the RDF/XML document cannot be written: ${literal}, of the predicate`);
  }
  return results;
}

/** The institution's links its graph does not state itself, if any. */
function linksBeyond(
  own: readonly TextQuad[],
  links: readonly Triple[] | undefined,
): Triple[] | undefined {
  if (links === undefined) return undefined;
  const stated = new Set<string>();
  for (const q of own) if (q.p === SAME_AS) stated.add(`${q.s} ${q.o}`);
  const beyond = links.filter((t) => !stated.has(`${t.s} ${t.o}`));
  return beyond.length > 0 ? beyond : undefined;
}

/** A description's label made unique to it in the snapshot: `_:b3` → `_:d17b3`. */
function local(term: string, prefix: string): string {
  return term.startsWith('_:') ? `${prefix}${term.slice(2)}` : term;
}
