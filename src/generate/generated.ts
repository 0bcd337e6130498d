// Synthetic institutions in exactly the shape of the published model (docs/data-model.md), as
// N-Triples, the same bytes for the same seed: the bench's and the tests' data, and the
// demonstration dataset served when the bundled real data is missing (src/process/prepareBundled.ts).
import { PREFIXES } from '../rdf/namespaces';
import { Draw, HOURS, KINDS, literal, pad, STREETS, TOWNS } from './synthetic';

const {
  rdf,
  rdfs,
  xsd,
  owl,
  foaf,
  v,
  dbp,
  dc,
  dcterms,
  dcmitype,
  geo,
  wgs84,
  schema,
  gbv,
  wdrs,
  cdtype,
} = PREFIXES;
const CC0 = 'http://creativecommons.org/publicdomain/zero/1.0/';

export interface GenerateOptions {
  readonly count: number;
  readonly seed: number;
  /** Base of the minted IRIs, without a trailing slash. */
  readonly base: string;
}

/** One institution being written: its names and IRIs, and the lines so far. */
interface Written {
  readonly draw: Draw;
  readonly n: number;
  readonly isil: string;
  readonly R: string;
  readonly town: string;
  readonly host: string;
  readonly lines: string[];
  /** A fresh blank node, numbered across the whole run. */
  readonly node: () => string;
}

const triple = (w: Written, s: string, p: string, o: string) =>
  w.lines.push(`${s} <${p}> ${o} .\n`);

/** Type, names, identifier, the lobid link, homepage, catalogue and other web pages. */
function identity(w: Written, name: string): void {
  const { draw, n, isil, R, town, host } = w;
  const t = (s: string, p: string, o: string) => triple(w, s, p, o);
  t(R, `${rdf}type`, `<${foaf}Organization>`);
  t(R, `${foaf}name`, literal(name));
  if (draw.chance(0.8)) t(R, `${dbp}shortName`, literal(`${town} SB ${n}`));
  t(R, `${dc}identifier`, literal(`(ISIL)${isil}`));
  t(R, `${owl}sameAs`, `<http://lobid.org/organisation/${isil}>`);
  if (draw.chance(0.9)) t(R, `${foaf}homepage`, `<${host}/>`);
  if (draw.chance(0.7)) {
    const opac = w.node();
    t(R, `${gbv}opac`, opac);
    t(opac, `${rdf}type`, `<${cdtype}CatalogueOrIndex>`);
    t(opac, `${foaf}homepage`, `<${host}/katalog>`);
  }
  if (draw.chance(0.6)) {
    const url = `<${host}/service/auskunft>`;
    t(R, `${v}url`, url);
    t(url, `${dc}description`, literal('Online-Auskunft'));
    if (draw.chance(0.5)) t(url, `${rdf}type`, `<${dcmitype}Service>`);
  }
  if (draw.chance(0.3)) {
    const url = `<${host}/%C3%B6ffnungszeiten>`;
    t(R, `${v}url`, url);
    t(url, `${dc}description`, literal('Öffnungszeiten besonderer Bereiche'));
  }
}

/** The main address, a postal one, the coordinates and the opening hours. */
function places(w: Written): void {
  const { draw, R, town } = w;
  const t = (s: string, p: string, o: string) => triple(w, s, p, o);
  const postcode = pad(1000 + Math.floor(draw.random() * 98_000), 5);
  const main = w.node();
  t(R, `${v}adr`, main);
  t(main, `${rdf}type`, `<${v}Address>`);
  t(main, `${rdf}type`, `<${v}Pref>`);
  t(
    main,
    `${v}street-address`,
    literal(`${draw.pickOf(STREETS)} ${1 + Math.floor(draw.random() * 120)}`),
  );
  t(main, `${v}locality`, literal(town));
  t(main, `${v}postal-code`, literal(postcode));
  if (draw.chance(0.5)) {
    const postal = w.node();
    t(R, `${v}adr`, postal);
    for (const type of ['Address', 'Postal', 'Parcel']) t(postal, `${rdf}type`, `<${v}${type}>`);
    t(postal, `${v}locality`, literal(town));
    t(postal, `${v}postal-code`, literal(pad(Number(postcode) + 1, 5)));
  }
  if (draw.chance(0.9)) {
    const place = w.node();
    t(R, `${geo}location`, place);
    t(place, `${rdf}type`, `<${wgs84}SpatialThing>`);
    // Inside Germany: latitude 47.3–55.0, longitude 5.9–15.0; kept as strings, as the original does.
    t(place, `${geo}lat`, literal((47.3 + draw.random() * 7.7).toFixed(5), `${xsd}string`));
    t(place, `${geo}long`, literal((5.9 + draw.random() * 9.1).toFixed(5), `${xsd}string`));
  }
  if (draw.chance(0.7)) {
    const hours = w.node();
    t(R, `${schema}openingHoursSpecification`, hours);
    t(hours, `${rdf}type`, `<${schema}OpeningHoursSpecification>`);
    t(hours, `${rdfs}comment`, literal(draw.pickOf(HOURS)));
    if (draw.chance(0.5))
      t(
        hours,
        `${schema}description`,
        literal('Servicezeiten s. Link "Öffnungszeiten besonderer Bereiche"'),
      );
  }
}

/** One to three contacts, each a phone, maybe a fax, and an e-mail address. */
function contacts(w: Written): void {
  const { draw, n, R } = w;
  const t = (s: string, p: string, o: string) => triple(w, s, p, o);
  const area = 30 + Math.floor(draw.random() * 900);
  const count = 1 + Math.floor(draw.random() * 3);
  for (let c = 0; c < count; c++) {
    for (const kind of ['Voice', 'Fax'] as const) {
      if (kind === 'Fax' && !draw.chance(0.6)) continue;
      const tel = w.node();
      t(R, `${v}tel`, tel);
      t(tel, `${rdf}type`, `<${v}${kind}>`);
      if (c === 0) t(tel, `${rdf}type`, `<${v}Pref>`);
      const number = `+49 ${area} ${100 + Math.floor(draw.random() * 900)}-${1000 + Math.floor(draw.random() * 9000)}`;
      t(tel, `${rdf}value`, literal(number));
    }
    t(R, `${v}email`, `<mailto:kontakt${c}@bibliothek-${n}.example.org>`);
  }
}

/** A description sometimes, and the description document with its licence and date. */
function described(w: Written, D: string): void {
  const { draw, n, R, town } = w;
  const t = (s: string, p: string, o: string) => triple(w, s, p, o);
  if (draw.chance(0.4))
    t(
      R,
      `${dc}description`,
      literal(`Synthetische Einrichtung für Tests. Übernommene Bibliothek: ${town} ${n + 1}`),
    );
  t(R, `${wdrs}describedby`, D);
  t(D, `${dcterms}license`, `<${CC0}>`);
  const modified = new Date(
    Date.UTC(2005, 0, 1) + Math.floor(draw.random() * 20 * 365.25 * 86_400) * 1000,
  );
  t(
    D,
    `${dcterms}modified`,
    literal(modified.toISOString().replace('.000Z', ''), `${xsd}dateTime`),
  );
}

/** Lines of N-Triples, one institution at a time. */
export function* generate({ count, seed, base }: GenerateOptions): Generator<string> {
  const draw = new Draw(seed);
  let blank = 0;
  const node = () => `_:b${++blank}`;
  for (let n = 1; n <= count; n++) {
    const isil = draw.isil(n);
    const town = draw.pickOf(TOWNS);
    const name = `${draw.pickOf(KINDS)} ${town} ${n} (synthetisch)`;
    const R = `<${base}/resource/organisations/${isil}>`;
    const host = `https://bibliothek-${n}.example.org`;
    const w: Written = { draw, n, isil, R, town, host, lines: [], node };
    identity(w, name);
    places(w);
    contacts(w);
    described(w, `<${base}/data/organisations/${isil}>`);
    yield w.lines.join('');
  }
}
