// Text and attribute values for HTML: the markup characters as references, and what HTML cannot
// hold at all shown as U+FFFD. Every page and error body the service writes escapes through it.

/** The five markup characters as character references. */
export function escapeMarkup(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Characters an HTML document must not hold, even as references (HTML §13.2.2.5 and §13.2.5.80:
 * controls other than ASCII white space, and the noncharacters U+FFFE and U+FFFF).
 */
const NOT_IN_HTML = /[\u0000-\u0008\u000B\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]/g;

/**
 * Text for people: NFC (the agency's data is often NFD), escaped; a character HTML cannot hold
 * is shown as U+FFFD (the RDF documents carry it as it is).
 */
export function escapeHtml(text: string): string {
  return escapeMarkup(text.normalize('NFC').replace(NOT_IN_HTML, '\uFFFD'));
}
