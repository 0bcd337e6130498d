// ISIL syntax (ISO 15511): the only way request text becomes an identifier the service will use.

/** An ISIL that passed `parseIsil`: the type can be obtained in no other way. */
export type Isil = string & { readonly __isil: unique symbol };

/** ISO 15511 §4: at most 16 characters. */
export const ISIL_MAX_LENGTH = 16;

/**
 * ISO 3166-1 alpha-2 codes (assigned, plus the exceptionally reserved `UK` and `EU`): a two-letter
 * ISIL prefix must be one of them. One-, three- and four-character prefixes (`O`, `ZDB`, `OCLC`)
 * are registered by the ISIL authority; their list changes, so only their shape is checked.
 */
const COUNTRY_CODES = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS ' +
    'BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE ' +
    'EG EH ER ES ET EU FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK ' +
    'HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB ' +
    'LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ ' +
    'NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU ' +
    'RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN ' +
    'TO TR TT TV TW TZ UA UG UK UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW'
  ).split(' '),
);

/** Prefix, hyphen, local part; characters `A-Z a-z 0-9 / : -` only. (Checked on every request:
 * `test`, no capture groups, so nothing is allocated for a well-formed ISIL.) */
const SHAPE = /^[A-Za-z0-9]{1,4}-[A-Za-z0-9/:-]+$/;

/** Why a string is not a well-formed ISIL, or `undefined` when it is one. */
export function isilDefect(text: string): string | undefined {
  if (text.length === 0) return 'empty';
  if (text.length > ISIL_MAX_LENGTH) return `longer than ${ISIL_MAX_LENGTH} characters`;
  if (!SHAPE.test(text))
    return 'not a prefix, a hyphen and a local part of A-Z, a-z, 0-9, "/", ":" and "-"';
  const hyphen = text.indexOf('-');
  const prefix = text.slice(0, hyphen);
  const local = text.slice(hyphen + 1);
  if (prefix.length === 2 && !COUNTRY_CODES.has(prefix.toUpperCase())) {
    return `the two-letter prefix "${prefix}" is not a country code`;
  }
  if (prefix.length === 2 && !/^[A-Za-z]{2}$/.test(prefix))
    return 'a two-character prefix must be letters';
  if (local.startsWith('-') || local.endsWith('-') || local.endsWith('/') || local.includes('//')) {
    return 'the local part starts or ends with a separator';
  }
  return undefined;
}

/** Returns the text as an `Isil` when it is well-formed, else `undefined`. */
export function parseIsil(text: string): Isil | undefined {
  return isilDefect(text) === undefined ? (text as Isil) : undefined;
}

/** ISILs are unique regardless of case (ISO 15511 §4.3): the key under which one is looked up. */
export function isilKey(isil: string): string {
  return isil.toLowerCase();
}
