// A generated PICA+ set and a day's changes to it, for the update's tests and bench: the base
// records, the update as the OAI-PMH harvester writes it (PicaPlus-XML records and deletions),
// and the merged records a full load reads instead.
import { generatePica } from '../../cli/generatePica';
import { deletionLine } from '../../cli/oaiHarvest';
import { PPXML_NAMESPACE } from '../../src/mapping/pica/read';

export interface ChangeCounts {
  readonly created: number;
  readonly updated: number;
  readonly withdrawn: number;
  readonly deleted: number;
}

/** The changes the figures name: 100 records. */
export const DAILY: ChangeCounts = { created: 30, updated: 50, withdrawn: 10, deleted: 10 };

export interface UpdateSet {
  /** The base's records, one PICA+ line each. */
  readonly base: string;
  /** The update: PicaPlus-XML records and `<?oai-deleted?>` lines. */
  readonly update: string;
  /** The records a full load of the merged sources reads. */
  readonly merged: string;
  /** The update's items: a record's PicaPlus-XML, or none for a deletion. */
  readonly items: readonly { readonly isil: string; readonly record?: string }[];
  /** The ISILs of each kind of change. */
  readonly isils: Record<keyof ChangeCounts, string[]>;
}

const ISIL = /008H [^\x1e]*\x1fe([^\x1f\x1e]+)/;
const PUBLISHED = '035E \x1faH';

const isilOf = (line: string) => ISIL.exec(line)![1]!;
const escaped = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** A PICA+ line as a PicaPlus-XML record, as the agency's OAI-PMH provider sends it. */
export function picaXml(line: string): string {
  const [, ...fields] = line.replace(/\n$/, '').split('\x1e');
  const tags = fields
    .filter((field) => field !== '')
    .map((field) => {
      const [head, ...subfields] = field.split('\x1f');
      const subs = subfields
        .map((s) => `<ppxml:subf id="${s[0]}">${escaped(s.slice(1))}</ppxml:subf>`)
        .join('');
      return `<ppxml:tag id="${head!.trim()}" occ="">${subs}</ppxml:tag>`;
    });
  return `<ppxml:record xmlns:ppxml="${PPXML_NAMESPACE}"><ppxml:global>${tags.join('')}</ppxml:global></ppxml:record>`;
}

/** The records of `count` institutions (seed `seed`) and `changes` to them, spread over the set. */
export function updateSet(
  count: number,
  changes: ChangeCounts = DAILY,
  seed = 7,
  tag = 'geändert',
): UpdateSet {
  const all = [...generatePica({ count: count + changes.created, seed })];
  const base = all.slice(0, count);
  const created = all.slice(count);
  const published = base
    .map((line, n) => [line, n] as const)
    .filter(([l]) => l.includes(PUBLISHED));
  const needed = changes.updated + changes.withdrawn + changes.deleted;
  const step = Math.floor(published.length / needed);
  const picked = Array.from({ length: needed }, (_, k) => published[k * step]![1]);
  const updated = new Set(picked.slice(0, changes.updated));
  const withdrawn = new Set(picked.slice(changes.updated, changes.updated + changes.withdrawn));
  const deleted = new Set(picked.slice(changes.updated + changes.withdrawn));
  const changed = (line: string, n: number) =>
    updated.has(n)
      ? line.replace('(synthetisch)', `(synthetisch, ${tag})`)
      : withdrawn.has(n)
        ? line.replace(PUBLISHED, '035E \x1faI')
        : line;
  const merged = [
    ...base.flatMap((line, n) => (deleted.has(n) ? [] : [changed(line, n)])),
    ...created,
  ];
  const records = [...[...updated, ...withdrawn].map((n) => changed(base[n]!, n)), ...created].map(
    (line) => ({ isil: isilOf(line), record: picaXml(line) }),
  );
  const removals = [...deleted].map((n) => ({ isil: isilOf(base[n]!) }));
  const items = [
    ...records.map((c) => c.record),
    ...removals.map((r) =>
      deletionLine({ identifier: `oai:stand-in.invalid:${r.isil}`, datestamp: 'x' }),
    ),
  ];
  return {
    base: base.join(''),
    merged: merged.join(''),
    items: [...records, ...removals],
    update: `<?xml version="1.0" encoding="UTF-8"?>\n<harvest xmlns:ppxml="${PPXML_NAMESPACE}">\n${items.join('\n')}\n</harvest>\n`,
    isils: {
      created: created.map(isilOf),
      updated: [...updated].map((n) => isilOf(base[n]!)),
      withdrawn: [...withdrawn].map((n) => isilOf(base[n]!)),
      deleted: [...deleted].map((n) => isilOf(base[n]!)),
    },
  };
}
