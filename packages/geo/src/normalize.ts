/**
 * What a user types as a postal code, turned into the form the centroid file keeps (docs/rules.md
 * §9 "Postal centroids"): upper case, single spaces, and each country's own shape.
 */

type Rule = (code: string) => string;

/**
 * The digits of a numeric code as typed. A leading country or old vehicle prefix ("D-10115",
 * "LT-01100", "SE-111 20") and anything after the code ("10115 Berlin") are not part of it.
 */
function typedDigits(code: string): string | undefined {
  const m = /^[A-Z]{0,3}[\s-]*(\d[\d\s-]*\d|\d)/.exec(code);
  return m ? m[1]!.replace(/\D/g, '') : undefined;
}

/** Numeric codes: the digits a user typed, with the country's width and separator put back. */
function numeric(width: number, format: (digits: string) => string = (d) => d): Rule {
  return (code) => {
    let digits = typedDigits(code);
    if (digits === undefined) return code;
    // A spreadsheet drops leading zeros: "2134" is Boston's 02134, "800" is Darwin's 0800.
    if (digits.length < width && digits.length >= Math.max(3, width - 2))
      digits = digits.padStart(width, '0');
    return digits.length === width ? format(digits) : digits;
  };
}

/** US and PR ZIP codes: five digits; a ZIP+4 ("10001-1234") keeps its first five. */
const zip: Rule = (code) => {
  const m = /^(?:[A-Z]{2}[\s-]*)?(\d{3,5})(?:[\s-]?\d{4})?\b/.exec(code);
  return m ? m[1]!.padStart(5, '0') : code;
};

/** The first `n` letters and digits: CA's FSA ("K1A 0B1" -> "K1A"), IE's routing key ("D01 F5P2" -> "D01"). */
const firstAlnum =
  (n: number): Rule =>
  (code) =>
    code.replace(/[^0-9A-Z]/g, '').slice(0, n);

/** GB's outward code: "SW1A 1AA" and "SW1A1AA" -> "SW1A"; an outward code alone stays. */
const gbOutward: Rule = (code) => {
  const compact = code.replace(/[^0-9A-Z]/g, '');
  return compact.length >= 5 && /\d[A-Z]{2}$/.test(compact) ? compact.slice(0, -3) : compact;
};

/** FR: five digits ("75 001" -> "75001"); CEDEX codes are kept as written ("75008 CEDEX 08"). */
const fr: Rule = (code) => {
  const rest = code.replace(/^FR?[\s-]+(?=\d)/, '');
  return /CEDEX/.test(rest) ? rest : numeric(5)(rest);
};

const RULES: Record<string, Rule> = {
  US: zip,
  PR: zip,
  CA: firstAlnum(3),
  IE: firstAlnum(3),
  GB: gbOutward,
  FR: fr,
  LV: numeric(4, (d) => `LV-${d}`),
  SE: numeric(5, (d) => `${d.slice(0, 3)} ${d.slice(3)}`),
  CZ: numeric(5, (d) => `${d.slice(0, 3)} ${d.slice(3)}`),
  PL: numeric(5, (d) => `${d.slice(0, 2)}-${d.slice(2)}`),
  // PT: a full CP7 gets its hyphen; a CP4 ("1000") stays four digits (lookup averages its CP7s).
  PT: (code) => {
    const d = typedDigits(code);
    if (d === undefined) return code;
    return d.length === 7 ? `${d.slice(0, 4)}-${d.slice(4)}` : d;
  },
  AU: numeric(4),
  BD: numeric(4),
  BE: numeric(4),
  BG: numeric(4),
  CH: numeric(4),
  NZ: numeric(4),
  PH: numeric(4),
  DE: numeric(5),
  ES: numeric(5),
  FI: numeric(5),
  GT: numeric(5),
  IT: numeric(5),
  KR: numeric(5),
  LK: numeric(5),
  LT: numeric(5),
  MX: numeric(5),
  MY: numeric(5),
  PK: numeric(5),
  TH: numeric(5),
  TR: numeric(5),
  UA: numeric(5),
  BY: numeric(6),
  IN: numeric(6),
  RO: numeric(6),
  RU: numeric(6),
};

/**
 * A typed postal code in the centroid file's form for country `cc`: upper case, whitespace
 * collapsed, then the country's rule (CA and IE: first 3 characters; GB: outward code; LV: `LV-`
 * prefix; SE and CZ: `111 20`; PL: `00-002`; PT: `1000-001`; US: 5 digits of a ZIP+4; numeric
 * countries: digits only, leading zeros restored, country prefixes dropped). Countries without a
 * rule keep the collapsed text. Returns '' for blank input.
 */
export function normalizePostal(cc: string, typed: string): string {
  const code = typed.normalize('NFKC').toUpperCase().replace(/\s+/g, ' ').trim();
  if (!code) return '';
  const rule = RULES[cc.trim().toUpperCase()];
  return rule ? rule(code) : code;
}
