// The institution's HTML page for people: the same triples as the RDF documents, laid out to read,
// every value from the data escaped.
import type { Quad, Term } from 'n3';
import type { Institution } from '../store/dataset';
import type { Description } from '../rdf/description';
import { RDF_FORMATS } from '../rdf/formats';
import { documentPath } from '../rdf/iris';
import { CC0, PREFIXES } from '../rdf/namespaces';

const { foaf, v, dbp, dc, dcterms, geo, schema, gbv, rdf, rdfs, wdrs } = PREFIXES;

/** The five markup characters as character references. */
function escapeMarkup(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Characters an HTML document must not hold, even as references (HTML §13.2.2.5 and §13.2.5.80:
 * controls other than ASCII white space, and the noncharacters U+FFFE and U+FFFF).
 */
const NOT_IN_HTML = /[\u0000-\u0008\u000B\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]/g;

/**
 * Text for people: NFC (the agency's data is often NFD), escaped; a character HTML cannot hold
 * is shown as U+FFFD (the RDF documents carry it as it is).
 */
export function escapeHtml(text: string): string {
  return escapeMarkup(text.normalize('NFC').replace(NOT_IN_HTML, '\uFFFD'));
}

/** JSON inside <script>: `<` escaped so that no `</script>` or `<!--` can end or bend the element. */
function scriptJson(json: string): string {
  return json.replace(
    /[<\u2028\u2029\u007F-\u009F\uFFFE\uFFFF]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * The `lang` attribute of an element that shows values from the data: the language tag their
 * literals share, else `""` (unknown: the page's own words are English, and most of the agency's
 * literals have no tag, so none is claimed for them).
 */
function langOf(...terms: (Term | undefined)[]): string {
  const tags = new Set(
    terms.filter((t) => t !== undefined).map((t) => (t.termType === 'Literal' ? t.language : '')),
  );
  const [tag] = tags;
  return ` lang="${tags.size === 1 && tag ? escapeMarkup(tag) : ''}"`;
}

/** Only http(s) and mailto links become clickable; anything else is shown as text. */
function link(iri: string, label = iri, lang = ''): string {
  return /^(https?:|mailto:)/i.test(iri)
    ? `<a href="${escapeMarkup(iri)}"${lang}>${escapeHtml(label)}</a>`
    : escapeHtml(label);
}

class Graph {
  constructor(private readonly quads: readonly Quad[]) {}

  objects(subject: Term | string, predicate: string): Term[] {
    const s = typeof subject === 'string' ? subject : subject.value;
    return this.quads
      .filter((q) => q.subject.value === s && q.predicate.value === predicate)
      .map((q) => q.object);
  }

  values(subject: Term | string, predicate: string): string[] {
    return this.objects(subject, predicate).map((t) => t.value);
  }

  firstTerm(subject: Term | string, predicate: string): Term | undefined {
    return this.objects(subject, predicate)[0];
  }

  first(subject: Term | string, predicate: string): string | undefined {
    return this.firstTerm(subject, predicate)?.value;
  }

  types(subject: Term): string[] {
    return this.values(subject, `${rdf}type`);
  }
}

function section(title: string, body: string): string {
  return body ? `<section><h2>${escapeHtml(title)}</h2>${body}</section>\n` : '';
}

function list(items: readonly string[]): string {
  return items.length ? `<ul>${items.map((i) => `<li>${i}</li>`).join('')}</ul>` : '';
}

/** The preferred (main) entries first, then the rest in the description's order. */
function mainFirst(g: Graph, terms: Term[]): Term[] {
  const main = (t: Term) => (g.types(t).includes(`${v}Pref`) ? 0 : 1);
  return terms
    .map((t, i) => ({ t, i }))
    .sort((a, b) => main(a.t) - main(b.t) || a.i - b.i)
    .map((e) => e.t);
}

function addresses(g: Graph, r: string): string {
  return list(
    mainFirst(g, g.objects(r, `${v}adr`)).map((adr) => {
      const kind = g.types(adr).includes(`${v}Postal`) ? 'Postal address' : 'Address';
      const street = g.firstTerm(adr, `${v}street-address`);
      const locality = g.firstTerm(adr, `${v}locality`);
      const lines = [
        street?.value,
        [g.first(adr, `${v}postal-code`), locality?.value].filter(Boolean).join(' '),
      ]
        .filter((l): l is string => Boolean(l))
        .map(escapeHtml);
      return `<strong>${kind}</strong><address${langOf(street, locality)}>${lines.join('<br>')}</address>`;
    }),
  );
}

function phones(g: Graph, r: string): string {
  return list(
    mainFirst(g, g.objects(r, `${v}tel`)).flatMap((tel) => {
      const types = g.types(tel);
      const kind = types.includes(`${v}Fax`) ? 'Fax' : 'Phone';
      const main = types.includes(`${v}Pref`) ? ' (main)' : '';
      return g
        .values(tel, `${rdf}value`)
        .map(
          (n) =>
            `${kind}${main}: <a href="tel:${escapeHtml(n.replace(/[^+\d]/g, ''))}">${escapeHtml(n)}</a>`,
        );
    }),
  );
}

function webLinks(g: Graph, r: string): string {
  const items = [
    ...g.values(r, `${foaf}homepage`).map((u) => `Homepage: ${link(u)}`),
    ...g.objects(r, `${v}url`).map((u) => {
      const label = g.firstTerm(u, `${dc}description`);
      return label ? link(u.value, label.value, langOf(label)) : link(u.value);
    }),
    ...g
      .objects(r, `${gbv}opac`)
      .flatMap((o) => g.values(o, `${foaf}homepage`).map((u) => `Catalogue: ${link(u)}`)),
  ];
  return list(items);
}

function location(g: Graph, r: string): string {
  return list(
    g.objects(r, `${geo}location`).map((loc) => {
      const lat = g.first(loc, `${geo}lat`);
      const long = g.first(loc, `${geo}long`);
      if (!lat || !long) return '';
      const osm = `https://www.openstreetmap.org/?mlat=${encodeURIComponent(lat)}&mlon=${encodeURIComponent(long)}#map=17/${encodeURIComponent(lat)}/${encodeURIComponent(long)}`;
      return `${escapeHtml(lat)}, ${escapeHtml(long)} (${link(osm, 'map')})`;
    }),
  );
}

function hours(g: Graph, r: string): string {
  return g
    .objects(r, `${schema}openingHoursSpecification`)
    .map((h) =>
      [g.firstTerm(h, `${rdfs}comment`), g.firstTerm(h, `${schema}description`)]
        .filter((t): t is Term => t !== undefined && t.value !== '')
        .map((t) => `<p${langOf(t)}>${escapeHtml(t.value)}</p>`)
        .join(''),
    )
    .join('');
}

/**
 * The institution's page, made from its own description alone (no figure of the whole dataset):
 * its ETag is a hash of the page, and has to change exactly when the record does.
 */
export function renderPage(
  description: Description,
  institution: Institution,
  jsonld: string,
): string {
  const g = new Graph(description.quads);
  const r = description.subject;
  const nameTerm = g.firstTerm(r, `${foaf}name`);
  const name = nameTerm?.value ?? institution.isil;
  const shortName = g.firstTerm(r, `${dbp}shortName`);
  const notes = g
    .objects(r, `${dc}description`)
    .map((d) => `<p${langOf(d)}>${escapeHtml(d.value)}</p>`)
    .join('');
  const emails = list(g.values(r, `${v}email`).map((m) => link(m, m.replace(/^mailto:/i, ''))));
  const alternates = RDF_FORMATS.map(
    (f) =>
      `<link rel="alternate" type="${f.mediaType}" href="${escapeHtml(documentPath(institution.isil, f.ext))}">`,
  ).join('\n');
  const downloads = list(
    RDF_FORMATS.map(
      (f) =>
        `<a href="${escapeHtml(documentPath(institution.isil, f.ext))}" type="${f.mediaType}">${f.label}</a>`,
    ),
  );
  const describedBy = g.first(r, `${wdrs}describedby`);
  const modified = describedBy ? g.first(describedBy, `${dcterms}modified`) : undefined;
  const license = describedBy ? g.first(describedBy, `${dcterms}license`) : undefined;
  // The page's own words are English; each element that shows values from the data says their
  // language (`langOf`).
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title${langOf(nameTerm)}>${escapeHtml(name)} (${escapeHtml(institution.isil)})</title>
<link rel="canonical" href="${escapeHtml(`/isil/${institution.isil}`)}">
<link rel="license" href="${CC0}">
${alternates}
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.1rem;border-bottom:1px solid #ddd;margin-top:1.6rem}
.isil{color:#555}address{font-style:normal}ul{padding-left:1.2rem}
footer{margin-top:2rem;color:#555;font-size:.9rem}
</style>
<script type="application/ld+json">
${scriptJson(jsonld.trim())}
</script>
</head>
<body>
<main>
<h1${langOf(nameTerm)}>${escapeHtml(name)}</h1>
<p class="isil">ISIL <code>${escapeHtml(institution.isil)}</code>${shortName ? ` · <span${langOf(shortName)}>${escapeHtml(shortName.value)}</span>` : ''}</p>
<p>Identifier: ${link(r)}</p>
${notes}
${section('Addresses', addresses(g, r))}${section('Location', location(g, r))}${section('Opening hours', hours(g, r))}${section('Phone and fax', phones(g, r))}${section('E-mail', emails)}${section('On the web', webLinks(g, r))}${section('Data', downloads)}
</main>
<footer>
<p>${modified ? `Record last modified ${escapeHtml(modified)}. ` : ''}Data ${license === CC0 || !license ? `released under <a rel="license" href="${CC0}">CC0 1.0 Universal</a>` : `licensed under ${link(license)}`}.</p>
</footer>
</body>
</html>
`;
}
