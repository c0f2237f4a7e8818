import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { displayText, MAX_BUTTON_LABEL_LENGTH, MAX_FIELD_TITLE_LENGTH, MAX_TITLE_LENGTH } from '../../src/security/display-text.js';

/** The payload of issue 19: an override, NUL, BEL and 28 line feeds before the end of the question. */
const SPOOF = 'Deploy web\u202Eyrtnomem\u202C\u0000\u0007' + '\n'.repeat(28) + 'to production?';

/** Every code point from `from` to `to`, as one string. */
const range = (from: number, to: number): string =>
  Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i)).join('');

const C0_BUT_TAB_AND_LINE_FEED = range(0x00, 0x08) + range(0x0b, 0x0c) + range(0x0e, 0x1f);
const C1_BUT_NEL = range(0x80, 0x84) + range(0x86, 0x9f);
const BIDI = '\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C';
const DEPRECATED_FORMAT = range(0x206a, 0x206f);
/** Anything a page must never show from a tool: controls but the line feed, and every bidi formatting character. */
// eslint-disable-next-line no-control-regex -- control characters are what must not be there
const FORBIDDEN = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u206F]/u;

describe('displayText', () => {
  it('makes the payload of issue 19 read as what it is: no override, no control, the question on the next paragraph', () => {
    expect(displayText(SPOOF)).toBe('Deploy webyrtnomem\n\nto production?');
    expect(displayText(SPOOF, 'line')).toBe('Deploy webyrtnomem to production?');
  });

  describe('control characters', () => {
    it('removes every C0 control but the line feed, and DEL', () => {
      expect(displayText(`a${C0_BUT_TAB_AND_LINE_FEED}b\u007Fc`)).toBe('abc');
    });

    it('removes every C1 control (NEL is a line break)', () => {
      expect(displayText(`a${C1_BUT_NEL}b`)).toBe('ab');
    });

    it('turns a tab into a space', () => {
      expect(displayText('a\tb\t\tc')).toBe('a b  c');
      expect(displayText('a\t\tb', 'line')).toBe('a b');
    });

    it('turns every line break (CR LF, CR, NEL, U+2028, U+2029) into one line feed', () => {
      expect(displayText('a\r\nb\rc\u0085d\u2028e\u2029f')).toBe('a\nb\nc\nd\ne\nf');
    });

    it('leaves no forbidden character in any of the 0x00-0xFF or bidi code points, in either shape', () => {
      const all = range(0x00, 0xff) + BIDI + DEPRECATED_FORMAT;
      expect(displayText(`x${all}y`)).not.toMatch(FORBIDDEN);
      expect(displayText(`x${all}y`, 'line')).not.toMatch(FORBIDDEN);
    });
  });

  describe('bidirectional formatting characters', () => {
    it.each([...BIDI, ...DEPRECATED_FORMAT].map((c) => [`U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`, c]))(
      'removes %s',
      (_, c) => {
        expect(displayText(`pay ${c}100${c} to bob`)).toBe('pay 100 to bob');
        expect(displayText(`pay ${c}100${c} to bob`, 'line', MAX_TITLE_LENGTH)).toBe('pay 100 to bob');
      },
    );

    it('removes paired overrides and embeddings as well as unpaired ones', () => {
      expect(displayText('\u202Eabc\u202C \u202Bdef\u202C \u2067ghi\u2069 \u202Djkl')).toBe('abc def ghi jkl');
    });

    it('keeps right-to-left letters themselves (the page isolates each text with dir="auto")', () => {
      expect(displayText('שלום مرحبا')).toBe('שלום مرحبا');
    });
  });

  describe('blocks', () => {
    it('keeps single line breaks and collapses every run of blank lines to one', () => {
      expect(displayText('a\nb\n\nc\n\n\n\n\nd')).toBe('a\nb\n\nc\n\nd');
    });

    it('counts a line of spaces or invisible characters as blank', () => {
      const invisible = ' \t\u00A0\u200B\u2060\u2800\u3164\uFEFF\u3000\u115F\u1160\uFFA0';
      expect(displayText(`a\n${invisible}\n${invisible}\n \n\nb`)).toBe('a\n\nb');
    });

    it('drops blank lines at either end and trailing spaces, keeps leading ones', () => {
      expect(displayText('\n\n  \n  a  \n b\n\n\n')).toBe('  a\n b');
    });

    it("leaves a block uncut: how much of it shows at once is the page's scroll box", () => {
      const long = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n');
      expect(displayText(long)).toBe(long);
    });
  });

  describe('lines', () => {
    it('joins lines and runs of spaces into single spaces and trims', () => {
      expect(displayText('  Deploy\n\n\n  web \r\n to\u2028production?  ', 'line')).toBe('Deploy web to production?');
    });

    it('cuts at maxLength characters, the last one an ellipsis', () => {
      const title = 'x'.repeat(MAX_TITLE_LENGTH + 50);
      const shown = displayText(title, 'line', MAX_TITLE_LENGTH);
      expect([...shown]).toHaveLength(MAX_TITLE_LENGTH);
      expect(shown).toBe(`${'x'.repeat(MAX_TITLE_LENGTH - 1)}…`);
      expect(displayText('x'.repeat(MAX_TITLE_LENGTH), 'line', MAX_TITLE_LENGTH)).toBe('x'.repeat(MAX_TITLE_LENGTH));
    });

    it('counts user-perceived characters: never splits an emoji sequence or a surrogate pair', () => {
      const family = '👨‍👩‍👧';
      const shown = displayText(family.repeat(MAX_BUTTON_LABEL_LENGTH + 5), 'line', MAX_BUTTON_LABEL_LENGTH);
      expect(shown).toBe(`${family.repeat(MAX_BUTTON_LABEL_LENGTH - 1)}…`);
    });

    it('drops the spaces before the ellipsis', () => {
      expect(displayText('abc   defg', 'line', 5)).toBe('abc…');
    });

    it('caps after removing controls, so invisible padding cannot use up the length', () => {
      const padded = `\u0000`.repeat(500) + 'Deploy web to production?';
      expect(displayText(padded, 'line', MAX_FIELD_TITLE_LENGTH)).toBe('Deploy web to production?');
    });
  });

  it('cuts stacked combining marks to four per character', () => {
    const zalgo = `a${'\u0336'.repeat(60)}b${'\u0301\u0302'}c`;
    expect(displayText(zalgo)).toBe(`a${'\u0336'.repeat(4)}b\u0301\u0302c`);
    expect(displayText('Tiếng Việt é', 'line')).toBe('Tiếng Việt é');
  });

  it('returns an empty string for a text of controls only', () => {
    expect(displayText('\u0000\u202E\u0007\n\n', 'line')).toBe('');
    expect(displayText('\u0000\u202E\u0007\n\n')).toBe('');
  });

  it('takes plain ASCII text the short way with the same result as the full rules', () => {
    // A bidi mark is removed by the full rules and keeps a text off the short way: with one appended, the
    // full rules see the same text.
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(' ', ' ', 'a', 'Z', '.', '~', '!', '0'), maxLength: 60 }),
        fc.integer({ min: 1, max: 30 }),
        (text, max) => {
          expect(displayText(text)).toBe(displayText(`${text}\u200E`));
          expect(displayText(text, 'line')).toBe(displayText(`${text}\u200E`, 'line'));
          expect(displayText(text, 'line', max)).toBe(displayText(`${text}\u200E`, 'line', max));
        },
      ),
      { seed: 20261124, numRuns: 2000 },
    );
    expect(displayText('  Enter your key  ')).toBe('  Enter your key');
    expect(displayText('   ')).toBe('');
    expect(displayText('  a   b  ', 'line')).toBe('a b');
  });
});
