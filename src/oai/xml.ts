// XML text for the OAI-PMH answers: escaped character data and attribute values, with the
// characters XML 1.0 cannot hold at all (§2.2: most C0 controls, lone surrogates, U+FFFE/U+FFFF)
// written as U+FFFD, so that every answer is well-formed whatever a record holds.

const NOT_IN_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const REFERENCES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
};

/** Text or an attribute value, escaped. */
export const xmlText = (text: string): string =>
  text.replace(NOT_IN_XML, '\uFFFD').replace(/[&<>"]/g, (c) => REFERENCES[c]!);

/** An element with text content. */
export const element = (name: string, text: string): string =>
  `<${name}>${xmlText(text)}</${name}>`;

/** Attributes from the defined values of `values`, in their order. */
export const attributes = (values: Readonly<Record<string, string | number | undefined>>): string =>
  Object.entries(values)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => ` ${name}="${xmlText(String(value))}"`)
    .join('');
