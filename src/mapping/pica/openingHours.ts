// Reads the agency's free-text opening hours (PICA+ 032P $i, "Mo-Fr 9.00-21.00, Sa 10.00-18.00")
// into day ranges with opening and closing times, or says it cannot: nothing is guessed.

/** schema.org's days, in the order the agency's abbreviations run. */
export const DAYS = [
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
  'Sunday',
] as const;
export type Day = (typeof DAYS)[number];

const ABBREVIATIONS: Record<string, number> = { mo: 0, di: 1, mi: 2, do: 3, fr: 4, sa: 5, so: 6 };

/** One rule of the text: these days, from `opens` to `closes` (`HH:MM:SS`). */
export interface OpeningHours {
  readonly days: readonly Day[];
  readonly opens: string;
  readonly closes: string;
}

/** `9`, `9.00`, `9:30`, `24.00` as `HH:MM:SS`, or undefined. */
function time(text: string): string | undefined {
  const match = /^(\d{1,2})(?:[.:](\d{2}))?$/.exec(text);
  if (!match) return undefined;
  const hours = Number(match[1]);
  const minutes = Number(match[2] ?? '0');
  if (hours > 24 || minutes > 59 || (hours === 24 && minutes > 0)) return undefined;
  // Midnight as schema.org advises writing it: xsd:time reads 24:00:00 as the next day's 00:00.
  if (hours === 24) return '23:59:59';
  return `${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}:00`;
}

/** `Mo-Fr`, `Sa`, `Mo, Mi` as days, or undefined. */
function days(text: string): Day[] | undefined {
  const out: Day[] = [];
  for (const part of text.split(/\s*,\s*/)) {
    const range = /^([A-Za-z]{2})\.?(?:\s*-\s*([A-Za-z]{2})\.?)?$/.exec(part);
    const from = range && ABBREVIATIONS[range[1]!.toLowerCase()];
    const to = range && ABBREVIATIONS[(range[2] ?? range[1]!).toLowerCase()];
    if (from === undefined || from === null || to === undefined || to === null || to < from)
      return undefined;
    out.push(...DAYS.slice(from, to + 1));
  }
  return out;
}

/**
 * The rules of the text, each "<days> <time>-<time>" with rules separated by commas or
 * semicolons; undefined when any part is not of that form (a note in brackets, "nach
 * Vereinbarung"), so that a client is told the text did not parse rather than given half of it.
 */
export function parseOpeningHours(text: string): OpeningHours[] | undefined {
  const rules: OpeningHours[] = [];
  const pattern =
    /^((?:[A-Za-z]{2}\.?(?:\s*-\s*[A-Za-z]{2}\.?)?)(?:\s*,\s*[A-Za-z]{2}\.?(?:\s*-\s*[A-Za-z]{2}\.?)?)*)\s+(\d{1,2}(?:[.:]\d{2})?)\s*(?:-|–|bis)\s*(\d{1,2}(?:[.:]\d{2})?)(?:\s*Uhr)?$/;
  for (const part of text
    .trim()
    .split(/\s*[;,]\s*(?=[A-Za-z]{2}\.?(?:\s*-\s*[A-Za-z]{2}\.?)?\s+\d)/)) {
    const match = pattern.exec(part.trim());
    if (!match) return undefined;
    const ruleDays = days(match[1]!);
    const opens = time(match[2]!);
    const closes = time(match[3]!);
    if (!ruleDays || !opens || !closes || closes <= opens) return undefined;
    rules.push({ days: ruleDays, opens, closes });
  }
  return rules.length > 0 ? rules : undefined;
}
