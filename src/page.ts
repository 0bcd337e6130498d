// The institution's HTML page for people: the same triples as the RDF documents, laid out to read,
// every value from the data escaped.
import type { Quad, Term } from 'n3';
import type { Institution } from './dataset';
import type { Description } from './rdf/description';
import { RDF_FORMATS } from './rdf/formats';
import { documentPath } from './rdf/iris';
import { CC0, PREFIXES } from './rdf/namespaces';

const { foaf, v, dbp, dc, dcterms, geo, schema, gbv, rdf, rdfs, wdrs } = PREFIXES;

/** The five markup characters as character references. */
function escapeMarkup(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Text for people: NFC (the agency's data is often NFD), escaped. */
export function escapeHtml(text: string): string {
  return escapeMarkup(text.normalize('NFC'));
}

/** JSON inside <script>: `<` escaped so that no `</script>` or `<!--` can end or bend the element. */
function scriptJson(json: string): string {
  return json
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Only http(s) and mailto links become clickable; anything else is shown as text. */
function link(iri: string, label = iri): string {
  return /^(https?:|mailto:)/i.test(iri)
    ? `<a href="${escapeMarkup(iri)}">${escapeHtml(label)}</a>`
    : escapeHtml(label);
}

/** A `lang` attribute for a literal with a language tag (BCP 47, as HTML's `lang` takes it). */
function langOf(term: Term): string {
  return term.termType === 'Literal' && term.language !== ''
    ? ` lang="${escapeMarkup(term.language)}"`
    : '';
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

  first(subject: Term | string, predicate: string): string | undefined {
    return this.values(subject, predicate)[0];
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
      const lines = [
        g.first(adr, `${v}street-address`),
        [g.first(adr, `${v}postal-code`), g.first(adr, `${v}locality`)].filter(Boolean).join(' '),
      ]
        .filter((l): l is string => Boolean(l))
        .map(escapeHtml);
      return `<strong>${kind}</strong><address>${lines.join('<br>')}</address>`;
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
    ...g.objects(r, `${v}url`).map((u) => link(u.value, g.first(u, `${dc}description`) ?? u.value)),
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
      [g.first(h, `${rdfs}comment`), g.first(h, `${schema}description`)]
        .filter((t): t is string => Boolean(t))
        .map((t) => `<p>${escapeHtml(t)}</p>`)
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
  const nameTerm = g.objects(r, `${foaf}name`)[0];
  const name = nameTerm?.value ?? institution.isil;
  const shortName = g.first(r, `${dbp}shortName`);
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
  // The page's own words are English; a value from the data is marked with its language where its
  // literal has one (the agency's literals mostly have none, so no language is claimed for them).
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(name)} (${escapeHtml(institution.isil)})</title>
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
<h1${nameTerm ? langOf(nameTerm) : ''}>${escapeHtml(name)}</h1>
<p class="isil">ISIL <code>${escapeHtml(institution.isil)}</code>${shortName ? ` · ${escapeHtml(shortName)}` : ''}</p>
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
