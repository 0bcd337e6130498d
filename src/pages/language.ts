// The language of a page: German or English, chosen by a `lang` query parameter when it
// names one, else by `Accept-Language` (RFC 9110 §12.5.4: the highest q-value among the two, ties
// to the first listed; none of them: German, the agency's language). The page's links keep `lang`
// when it was given, so a reader who switched stays in the language chosen.

export type Language = 'de' | 'en';

/** The `lang` parameter when it names a language of the pages. */
export function languageParameter(params: URLSearchParams): Language | undefined {
  const lang = params.get('lang')?.toLowerCase();
  return lang === 'de' || lang === 'en' ? lang : undefined;
}

/** The language `Accept-Language` prefers among German and English (German when it names neither). */
export function acceptLanguage(header: string | undefined): Language {
  if (!header) return 'de';
  let best: Language = 'de';
  let bestQ = 0;
  for (const part of header.slice(0, 1024).split(',').slice(0, 32)) {
    const [range, ...params] = part.trim().split(';');
    const tag = range!.trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      if (!/^\s*q\s*=/i.test(p)) continue;
      const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p);
      // A weight that is not one (RFC 9110 §12.4.2) makes the range unreadable: it is skipped.
      q = m ? Number(m[1]) : -1;
    }
    const primary = tag.split('-')[0];
    const lang = primary === 'de' || primary === 'en' ? primary : undefined;
    if (lang && q > bestQ) {
      best = lang;
      bestQ = q;
    }
  }
  return best;
}

export interface PageLanguage {
  readonly lang: Language;
  /** Whether it was named by `lang` (then links keep it). */
  readonly explicit: boolean;
}

export function pageLanguage(params: URLSearchParams, header: string | undefined): PageLanguage {
  const given = languageParameter(params);
  return given
    ? { lang: given, explicit: true }
    : { lang: acceptLanguage(header), explicit: false };
}

/** `path` with `lang` added when the page's language was named. */
export function keepLanguage(path: string, language: PageLanguage): string {
  if (!language.explicit) return path;
  return `${path}${path.includes('?') ? '&' : '?'}lang=${language.lang}`;
}

/**
 * The formatters, made once per language: making an `Intl` formatter costs far more than
 * formatting with one, and a page of an institution with many versions formats a date for each.
 */
const DATES: Record<Language, Intl.DateTimeFormat> = {
  de: new Intl.DateTimeFormat('de-DE', { dateStyle: 'long', timeZone: 'UTC' }),
  en: new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' }),
};
const NUMBERS: Record<Language, Intl.NumberFormat> = {
  de: new Intl.NumberFormat('de-DE'),
  en: new Intl.NumberFormat('en-GB'),
};

/** A date for people, in the page's language (`25. November 2026`, `25 November 2026`). */
export function humanDate(date: Date, lang: Language): string {
  return DATES[lang].format(date);
}

export function humanNumber(n: number, lang: Language): string {
  return NUMBERS[lang].format(n);
}
