/**
 * Text and attribute values for an XML 1.0 document. Characters XML 1.0 cannot hold at all
 * (C0 controls other than tab, newline and carriage return; lone surrogates; U+FFFE and U+FFFF)
 * become U+FFFD, so a stray byte in a metric name or a note cannot make the report unreadable.
 * Attribute values also keep their tabs and line breaks as character references, which a
 * parser would otherwise turn into spaces.
 */

const NOT_XML_CHAR = new RegExp(
  [
    '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uFFFE\\uFFFF]',
    '[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])',
    '(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]',
  ].join('|'),
  'g',
);

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

const entity = (char: string): string => ENTITIES[char]!;

/** Element content: markup characters escaped; a carriage return kept as one (parsers drop it). */
export function escapeXmlText(text: string): string {
  return text.replace(NOT_XML_CHAR, '\uFFFD').replace(/[&<>\r]/g, entity);
}

export function escapeXmlAttribute(text: string): string {
  return text.replace(NOT_XML_CHAR, '\uFFFD').replace(/[&<>"'\t\n\r]/g, entity);
}
