// German folding for search: what a librarian types and what the data spells meet in
// one form. Case goes; ä, ö, ü become ae, oe, ue and ß ss (so "Muenchen" finds "München" and
// "Strasse" "Straße"); any other accent goes (é → e, å → a); white space and punctuation separate
// words. The index and the query are folded by the same function.

const GERMAN: Readonly<Record<string, string>> = { ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss', ẞ: 'ss' };

/** `text` folded (NFC first, since the agency's data is often NFD). */
export function fold(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[äöüßẞ]/g, (c) => GERMAN[c]!)
    .normalize('NFD')
    .replace(/\p{M}+/gu, '');
}

/** The words of `text`, folded: runs of letters and digits. */
export function words(text: string): string[] {
  return fold(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}
