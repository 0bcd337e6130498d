// The institution's HTML page for people: the same triples as the RDF documents, laid out to read,
// every value from the data escaped.
import { FEED_PATH } from '../rdf/iris';
import { TEXT } from './words';
import type { Term } from 'n3';
import type { Institution } from '../store/dataset';
import type { Description } from '../rdf/description';
import { RDF_FORMATS } from '../rdf/formats';
import { documentPath, mementoPath, timemapPath } from '../rdf/iris';
import { timestamp14 } from '../history/model';
import { CC0, PREFIXES } from '../rdf/namespaces';
import type { Position } from '../store/positions';
import { LIBTYPE, LIBTYPES } from '../rdf/libtype';
import { Graph, mainFirst } from './graph';
import { schemaOrg } from './schemaOrg';
import { location } from './location';
import { flatRecord } from '../record/flatRecord';
import { layout } from './frame';
import { DE, ELSEWHERE, KINDS, PAGE } from './institutionWords';
import { escapeHtml, escapeMarkup } from './escape';
import { humanDate, humanNumber, keepLanguage, type PageLanguage } from './language';
import { fullFacts } from './fullFacts';
import type { ProfileName } from '../rdf/profiles';

const { foaf, v, dbp, dc, dcterms, schema, gbv, rdf, rdfs, wdrs } = PREFIXES;

/** JSON inside <script>: `<` escaped so that no `</script>` or `<!--` can end or bend the element. */
function scriptJson(json: string): string {
  return json.replace(
    /[<\u2028\u2029\u007F-\u009F\uFFFE\uFFFF]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * The `lang` attribute of an element that shows values from the data: the language tag their
 * literals share; else `de`, the agency's language, in which its untagged literals are written
 * (the RDF documents keep them untagged, as the source has them).
 */
function langOf(...terms: (Term | undefined)[]): string {
  const tags = new Set(
    terms
      .filter((t) => t !== undefined)
      .map((t) => (t.termType === 'Literal' && t.language ? t.language : 'de')),
  );
  const [tag] = tags;
  return ` lang="${tags.size === 1 && tag ? escapeMarkup(tag) : 'de'}"`;
}

/** Only http(s) and mailto links become clickable; anything else is shown as text. */
function link(iri: string, label = iri, lang = ''): string {
  return /^(https?:|mailto:)/i.test(iri)
    ? `<a href="${escapeMarkup(iri)}"${lang}>${escapeHtml(label)}</a>`
    : escapeHtml(label);
}

function section(title: string, body: string): string {
  return body ? `<section><h2>${escapeHtml(title)}</h2>${body}</section>\n` : '';
}

function list(items: readonly string[]): string {
  return items.length ? `<ul>${items.map((i) => `<li>${i}</li>`).join('')}</ul>` : '';
}

/** What the page says besides the description: its language, the map, the ISILs it replaced. */
export interface PageOptions {
  readonly language: PageLanguage;
  /** Tile URL template; empty: the marker's coordinates alone. */
  readonly mapTiles: string;
  readonly mapAttribution: string;
  /** The withdrawn ISILs this institution succeeds (`formerly`), from the withdrawn list. */
  readonly predecessors: readonly { readonly isil: string; readonly name: string | undefined }[];
  /** The base of the service's IRIs: an object IRI under it is another institution, linked. */
  readonly baseIri: string;
  /** The institution's versions (its mementos, oldest first): their time and page. */
  readonly versions?: readonly { readonly time: number; readonly href: string }[];
  /** How many versions it has, when `versions` holds only the newest (else their number). */
  readonly versionCount?: number;
  /** A memento's page: the time it shows the record as of, and the current page. */
  readonly asOf?: { readonly time: number; readonly current: string };
  /** The profile the description is in: `full` shows what the record holds beyond `zdb`. */
  readonly profile?: ProfileName;
  /** Wikidata's position, shown where the record has no coordinates (src/store/positions.ts). */
  readonly position?: Position | undefined;
}

/**
 * Versions a page lists. An ISIL with ten thousand versions made a page of ten thousand links,
 * seconds to render on the serving thread; the TimeMap lists them all.
 */
export const VERSIONS_SHOWN = 20;

/**
 * The versions a page lists, as `PageOptions` takes them, from the ISIL's mementos (oldest first)
 * and the page's path: links made for the newest VERSIONS_SHOWN only (making all of ten thousand
 * cost more than the rest of the page), with how many there are.
 */
export function listedVersions(
  mementos: readonly { readonly time: number }[],
  page: string,
): Pick<PageOptions, 'versions' | 'versionCount'> {
  return {
    versions: mementos.slice(-VERSIONS_SHOWN).map((m) => ({
      time: m.time,
      href: mementoPath(timestamp14(m.time), page),
    })),
    versionCount: mementos.length,
  };
}

/**
 * The page's list of versions, newest first, the one shown marked: the newest VERSIONS_SHOWN,
 * and a link to the TimeMap of the page (`self`) when there are more.
 */
function versions(options: PageOptions, self: string): string {
  const { lang } = options.language;
  const all = options.versions ?? [];
  const shown = list(
    all
      .slice(-VERSIONS_SHOWN)
      .reverse()
      .map((v) => {
        const date = escapeHtml(humanDate(new Date(v.time * 1000), lang));
        const at = new Date(v.time * 1000).toISOString().replace('.000', '');
        return v.time === options.asOf?.time
          ? `<time datetime="${at}">${date}</time>`
          : `<a href="${escapeHtml(keepLanguage(v.href, options.language))}"><time datetime="${at}">${date}</time></a>`;
      }),
  );
  const count = options.versionCount ?? all.length;
  if (count <= VERSIONS_SHOWN) return shown;
  const words = PAGE[lang].allVersions(humanNumber(count, lang));
  return `${shown}<p><a href="${escapeHtml(timemapPath(self))}" type="application/link-format">${escapeHtml(words)}</a></p>`;
}

/** What a memento's page says first: the date it shows the record as of, and where it is now. */
function asOfNote(options: PageOptions): string {
  if (!options.asOf) return '';
  const t = PAGE[options.language.lang];
  const date = humanDate(new Date(options.asOf.time * 1000), options.language.lang);
  return `<p class="memento">${t.asOf} ${escapeHtml(date)}. <a href="${escapeHtml(keepLanguage(options.asOf.current, options.language))}">${t.current}</a>.</p>\n`;
}

function addresses(g: Graph, r: string, t: typeof DE): string {
  return list(
    mainFirst(g, g.objects(r, `${v}adr`)).map((adr) => {
      const types = g.types(adr);
      const kind = types.includes(`${v}Postal`)
        ? t.postal
        : types.includes(`${v}Pref`)
          ? t.visiting
          : t.address;
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

/** A phone or fax number or an e-mail address, with the contact functions it serves. */
interface Contact {
  readonly kind: 'phone' | 'fax' | 'email';
  readonly value: string;
  main: boolean;
  readonly functions: Term[];
}

/**
 * Every contact of the description once: the vCard's (`v:tel`, `v:email`) and the contact
 * functions' (`schema:contactPoint`, which the loader writes beside them with the same numbers),
 * a number known by its digits and an address in lower case, with the functions naming it.
 */
function contactsOf(g: Graph, r: string): Contact[] {
  const found = new Map<string, Contact>();
  const add = (kind: Contact['kind'], value: string, fn?: Term, main = false) => {
    const key = `${kind} ${kind === 'email' ? value.toLowerCase() : value.replace(/[^+\d]/g, '')}`;
    let contact = found.get(key);
    if (!contact) found.set(key, (contact = { kind, value, main, functions: [] }));
    contact.main ||= main;
    if (fn && !contact.functions.some((f) => f.value === fn.value)) contact.functions.push(fn);
  };
  for (const tel of mainFirst(g, g.objects(r, `${v}tel`))) {
    const types = g.types(tel);
    for (const n of g.values(tel, `${rdf}value`))
      add(types.includes(`${v}Fax`) ? 'fax' : 'phone', n, undefined, types.includes(`${v}Pref`));
  }
  for (const m of g.values(r, `${v}email`)) add('email', m.replace(/^mailto:/i, ''));
  for (const point of g.objects(r, `${schema}contactPoint`)) {
    const fn = g.firstTerm(point, `${schema}contactType`);
    for (const n of g.values(point, `${schema}telephone`)) add('phone', n, fn);
    for (const n of g.values(point, `${schema}faxNumber`)) add('fax', n, fn);
    for (const m of g.values(point, `${schema}email`)) add('email', m.replace(/^mailto:/i, ''), fn);
  }
  return [...found.values()];
}

/** A contact as the page shows it: a phone number to call, a fax number as text (no `tel:`). */
function contactItem(contact: Contact, t: typeof DE): string {
  const label = `${t[contact.kind]}${contact.main ? ` (${t.main})` : ''}`;
  const shown = escapeHtml(contact.value);
  if (contact.kind === 'email')
    return `${label}: ${link(`mailto:${contact.value}`, contact.value)}`;
  if (contact.kind === 'fax') return `${label}: ${shown}`;
  return `${label}: <a href="tel:${escapeHtml(contact.value.replace(/[^+\d]/g, ''))}">${shown}</a>`;
}

/**
 * The contacts, each once: those no contact function names one a line, the others grouped by the
 * functions naming them (`Auskunft, Gebende Fernleihe: Phone …, Fax …`).
 */
function contact(g: Graph, r: string, t: typeof DE): string {
  const groups = new Map<string, { functions: Term[]; contacts: Contact[] }>();
  for (const each of contactsOf(g, r)) {
    const key = each.functions.map((f) => f.value).join('\n');
    const group = groups.get(key) ?? { functions: each.functions, contacts: [] };
    groups.set(key, group);
    group.contacts.push(each);
  }
  return list(
    [...groups.values()].flatMap(({ functions, contacts }) =>
      functions.length === 0
        ? contacts.map((c) => contactItem(c, t))
        : [
            `${functions.map((f) => `<strong${langOf(f)}>${escapeHtml(f.value)}</strong>`).join(', ')}: ${contacts.map((c) => contactItem(c, t)).join(', ')}`,
          ],
    ),
  );
}

function webLinks(g: Graph, r: string, t: typeof DE): string {
  return list([
    ...g.values(r, `${foaf}homepage`).map((u) => `${t.homepage}: ${link(u)}`),
    ...g.objects(r, `${v}url`).map((u) => {
      const label = g.firstTerm(u, `${dc}description`);
      return label ? link(u.value, label.value, langOf(label)) : link(u.value);
    }),
    ...g
      .objects(r, `${gbv}opac`)
      .flatMap((o) => g.values(o, `${foaf}homepage`).map((u) => `${t.catalogue}: ${link(u)}`)),
  ]);
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

/** The facts a librarian looks for first: ISIL, Sigel, type, URI, the ISILs it replaced. */
function facts(g: Graph, r: string, institution: Institution, options: PageOptions): string {
  const t = PAGE[options.language.lang];
  const sigel = g
    .values(r, `${dc}identifier`)
    .map((i) => /^\(Sigel\)\s*(.+)$/i.exec(i)?.[1])
    .find((x) => x !== undefined);
  const kinds = [
    ...new Set(
      g
        .types({ value: r } as Term)
        .map((c) => KINDS[c])
        .filter(Boolean),
    ),
  ];
  // The agency's own type (035E $f): its code list's page and label where the list knows it.
  const typeNames = [
    ...kinds.map((k) => escapeHtml(t.types[k!]!)),
    ...g
      .values(r, `${dcterms}type`)
      .filter((lt) => lt.startsWith(LIBTYPE))
      .map((lt) => {
        const known = LIBTYPES.get(lt);
        if (!known) return link(lt, lt.slice(LIBTYPE.length));
        const href = keepLanguage(`/vocab/institution-types/${known.code}.html`, options.language);
        return `<a href="${escapeMarkup(href)}">${escapeHtml(known[options.language.lang])}</a>`;
      }),
  ];
  const rows: [string, string][] = [
    ['ISIL', `<code>${escapeHtml(institution.isil)}</code>`],
    ...(sigel ? [['Sigel', `<code>${escapeHtml(sigel)}</code>`] as [string, string]] : []),
    ...(typeNames.length ? [[t.type, typeNames.join(', ')] as [string, string]] : []),
    [t.uri, link(r)],
    ...(options.predecessors.length
      ? [
          [
            t.formerly,
            options.predecessors
              .map(
                (p) =>
                  `<code>${escapeHtml(p.isil)}</code>${p.name ? ` (<span lang="de">${escapeHtml(p.name)}</span>)` : ''}`,
              )
              .join(', '),
          ] as [string, string],
        ]
      : []),
  ];
  return `<dl class="facts">${rows.map(([k, val]) => `<dt>${k}</dt><dd>${val}</dd>`).join('')}</dl>`;
}

/** Other institutions of this dataset the description points to, and the same one elsewhere. */
function links(g: Graph, r: string, options: PageOptions): { related: string; out: string } {
  const own = `${options.baseIri}/resource/organisations/`;
  const related: string[] = [];
  const out: string[] = [];
  for (const q of g.all)
    if (q.subject.value === r && q.object.termType === 'NamedNode') {
      const o = q.object.value;
      const site = ELSEWHERE.find(([start]) => o.startsWith(start));
      if (site && q.predicate.value === `${PREFIXES.owl}sameAs`) out.push(`${site[1]}: ${link(o)}`);
      else if (o.startsWith(own) && o !== r) {
        const isil = o.slice(own.length);
        related.push(
          `<a href="${escapeHtml(keepLanguage(`/isil/${isil}`, options.language))}">${escapeHtml(isil)}</a>`,
        );
      }
    }
  return { related: list([...new Set(related)]), out: list([...new Set(out)]) };
}

/**
 * The institution's page, made from its own description, and what `options` adds (its language,
 * the ISILs it replaced): its ETag is a hash of the page, and changes exactly when one of them does.
 */
export function renderPage(
  description: Description,
  institution: Institution,
  jsonld: string,
  options: PageOptions,
): string {
  const { lang } = options.language;
  const t = PAGE[lang];
  const g = new Graph(description.quads);
  const r = description.subject;
  const nameTerms = g.objects(r, `${foaf}name`);
  const nameTerm = nameTerms[0];
  const name = nameTerm?.value ?? institution.isil;
  const others = [...nameTerms.slice(1), ...g.objects(r, `${dbp}shortName`)].map(
    (n) => `<span${langOf(n)}>${escapeHtml(n.value)}</span>`,
  );
  const notes = g
    .objects(r, `${dc}description`)
    .map((d) => `<p${langOf(d)}>${escapeHtml(d.value)}</p>`)
    .join('');
  const formats = list([
    ...RDF_FORMATS.map(
      (f) =>
        `<a href="${escapeHtml(documentPath(institution.isil, f.ext))}" type="${f.mediaType}">${f.label}</a>`,
    ),
    `<a href="${FEED_PATH}" type="application/trig">${TEXT[lang].feed}</a>`,
  ]);
  const describedBy = g.first(r, `${wdrs}describedby`);
  const modified = describedBy ? g.first(describedBy, `${dcterms}modified`) : undefined;
  const modifiedDate = modified ? new Date(`${modified.slice(0, 19)}Z`) : undefined;
  const license = describedBy ? g.first(describedBy, `${dcterms}license`) : undefined;
  const { related, out } = links(g, r, options);
  const where = location(g, r, name, options);
  const head = [
    `<link rel="canonical" href="${escapeHtml(`/isil/${institution.isil}`)}">`,
    ...RDF_FORMATS.map(
      (f) =>
        `<link rel="alternate" type="${f.mediaType}" href="${escapeHtml(documentPath(institution.isil, f.ext))}">`,
    ),
    ...(where ? ['<link rel="stylesheet" href="/assets/leaflet/leaflet.css">'] : []),
    `<script type="application/ld+json">\n${scriptJson(jsonld.trim())}\n</script>`,
    `<script type="application/ld+json">\n${scriptJson(JSON.stringify(schemaOrg(g, r, flatRecord(institution.isil, description))))}\n</script>`,
  ].join('\n');
  const body = `${asOfNote(options)}<h1${langOf(nameTerm)}>${escapeHtml(name)}</h1>
${others.length ? `<p class="other-names">${t.otherNames}: ${others.join(' · ')}</p>` : ''}
${facts(g, r, institution, options)}
${notes ? section(t.about, notes) : ''}${section(t.addresses, addresses(g, r, t))}${section(t.location, where)}${section(t.hours, hours(g, r))}${section(t.contact, contact(g, r, t))}${section(t.web, webLinks(g, r, t))}${section(t.related, related)}${section(t.linksOut, out)}${options.profile === 'full' ? section(lang === 'de' ? 'Aus dem Datensatz der ISIL-Agentur' : "From the ISIL agency's record", fullFacts(g, r, lang)) : ''}${section(t.data, formats)}${section(t.versions, versions(options, `/isil/${institution.isil}`))}
<p class="record">${modifiedDate && !Number.isNaN(modifiedDate.getTime()) ? `${t.modified} ${humanDate(modifiedDate, lang)}. ` : ''}${t.licence} ${license === CC0 || !license ? `<a rel="license" href="${CC0}">CC0 1.0 Universal</a>` : link(license)}.</p>`;
  return layout({
    language: options.language,
    title: `${name} (${institution.isil})`,
    titleLang: langOf(nameTerm).slice(7, -1),
    body,
    head,
    self: `/isil/${institution.isil}`,
    scripts: where ? ['/assets/leaflet/leaflet.js', '/assets/map.js'] : [],
  });
}
