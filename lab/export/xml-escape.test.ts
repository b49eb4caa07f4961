import { describe, expect, it } from 'vitest';
import { parseXmlSubset } from '../../test/fixtures/xml-subset.js';
import { escapeXmlAttribute, escapeXmlText } from './xml-escape.js';

const HOSTILE = 'a<b>&c "d" \'e\'\tf\ng\r\u0000h\u001Fi\uD800j\u{1F600}k&amp;';
const EXPECTED = 'a<b>&c "d" \'e\'\tf\ng\r\uFFFDh\uFFFDi\uFFFDj\u{1F600}k&amp;';

describe('XML escaping', () => {
  it('round-trips attribute values through a parser, whitespace included', () => {
    const xml = `<r a="${escapeXmlAttribute(HOSTILE)}" b='${escapeXmlAttribute(HOSTILE)}'/>`;
    expect(parseXmlSubset(xml).attributes).toEqual({ a: EXPECTED, b: EXPECTED });
  });

  it('round-trips text, replacing only what XML 1.0 cannot hold', () => {
    expect(parseXmlSubset(`<r>${escapeXmlText(HOSTILE)}</r>`).text).toBe(EXPECTED);
  });
});
