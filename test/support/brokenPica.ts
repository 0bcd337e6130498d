// The broken variants of the agency's real PICA+ files that the readers' tests refuse or read
// around, made at run time from the real files (third-party: never committed, nor any edit of
// them): a record without a tag in the middle, a file cut off inside a record, one not UTF-8,
// XML with a mismatched end tag, and an empty file.
import fs from 'node:fs';
import path from 'node:path';
import { REAL_DATA, tempDir } from '../support';

/** Writes the broken files into a new temporary folder; returns it. */
export function brokenPica(): string {
  const dir = tempDir();
  const write = (name: string, bytes: Buffer) => fs.writeFileSync(path.join(dir, name), bytes);
  const cat = (...parts: Buffer[]) => Buffer.concat(parts);
  const nl = Buffer.from('\n');

  // Normalized PICA+: one record a line. Lines 3 and 4 are DE-294 and DE-38, line 7 DE-Hil2.
  const dat = fs.readFileSync(path.join(REAL_DATA, 'isil-directory_pica-plain_8-records.dat'));
  const line = (n: number) => lines(dat)[n - 1]!;
  // DE-38's field 029A loses its tag, keeping its subfields: a malformed record between two good.
  const untagged = replaceOnce(line(4), '\x1e029A \x1fa', '\x1e\x1fa');
  write('malformed-middle.dat', cat(line(3), nl, untagged, nl, line(7), nl));
  write('truncated.dat', cat(line(3), nl, line(4).subarray(0, 270)));
  // The decomposed ä (a and U+0308) of Universitäts as one Latin-1 byte.
  write('not-utf8.dat', cat(line(3), nl, replaceOnce(line(4), 'a\u0308', '\xe4', 'latin1'), nl));
  write('empty.dat', Buffer.alloc(0));

  // PicaPlus-XML: its lines, the first 188 holding DE-38 and the start of DE-Tir1, the last five
  // closing the harvest.
  const xml: Buffer[] = lines(
    fs.readFileSync(path.join(REAL_DATA, 'isil-directory_picaplus-xml_2013_9-records.xml')),
  ).map((l) => cat(l, nl));
  const xmlOf = (...parts: Buffer[][]) => Buffer.concat(parts.flat());
  const closing = xml.slice(778);
  write('truncated.xml', xmlOf(xml.slice(0, 160)));
  const mismatched = xml.slice(0, 188);
  mismatched[157] = replaceOnce(mismatched[157]!, '</ppxml:subf>', '</ppxml:tag>');
  write('invalid.xml', xmlOf(mismatched, closing));
  // DE-38's record closed after its first fields and a record of no fields opened: an empty
  // record between DE-38 and DE-Tir1.
  const split = [
    '\t\t\t</ppxml:global>',
    '\t\t</ppxml:record>',
    '\t</metadata>',
    '\t<metadata>',
    '\t\t<ppxml:record xmlns:ppxml="http://www.oclcpica.org/xmlns/ppxml-1.0">',
    '\t\t\t<ppxml:global opacflag="" status="">',
  ].map((l) => Buffer.from(`${l}\n`));
  write('malformed-middle.xml', xmlOf(xml.slice(0, 123), split, xml.slice(123, 188), closing));
  return dir;
}

/** The lines of `bytes`, without their line feeds (a final line feed ends the last line). */
function lines(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, start)) {
    out.push(bytes.subarray(start, at));
    start = at + 1;
  }
  if (start < bytes.length) out.push(bytes.subarray(start));
  return out;
}

/** `bytes` with the first `from` (UTF-8) replaced by `to`; throws when `from` is not there. */
function replaceOnce(
  bytes: Buffer,
  from: string,
  to: string,
  encoding: BufferEncoding = 'utf8',
): Buffer {
  const needle = Buffer.from(from);
  const at = bytes.indexOf(needle);
  if (at === -1) throw new Error(`${JSON.stringify(from)} is not in the real file any more`);
  return Buffer.concat([
    bytes.subarray(0, at),
    Buffer.from(to, encoding),
    bytes.subarray(at + needle.length),
  ]);
}
