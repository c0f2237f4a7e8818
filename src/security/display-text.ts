/**
 * Text that came from a tool or its arguments (an elicitation's message, the confirm page's title, warning and
 * button labels, a hosted form's titles and descriptions), made safe to show to the person who answers. Escaping
 * keeps such text from becoming markup; this keeps it from making the page read differently from the request:
 *
 * - C0 and C1 control characters and DEL are removed (NUL, BEL, escape sequences…); a tab becomes a space, and
 *   every kind of line break (CR LF, CR, NEL, U+2028, U+2029) becomes one line feed;
 * - bidirectional formatting characters are removed, paired or not: the embeddings and overrides
 *   (U+202A–U+202E), the isolates (U+2066–U+2069), the marks (U+200E, U+200F, U+061C) and the deprecated
 *   format controls (U+206A–U+206F). The templates show each such text in its own isolate (`dir="auto"` or
 *   `<bdi>`), so right-to-left text still reads naturally without reordering the page around it;
 * - a run of more than four combining marks on one character is cut to four (stacked marks draw over the lines
 *   above and below);
 * - `block` (a message, a warning): lines are kept, but blank lines (only spaces or invisible characters) collapse
 *   to one and none are left at either end, so line feeds cannot push the rest of a sentence out of sight;
 * - `line` (a title, a label, an option): every run of spaces and line breaks becomes one space, trimmed, and the
 *   text is cut to `maxLength` characters (user-perceived characters), ending in "…".
 *
 * How many lines of a block a page shows at once is the page's business (a scroll box of fixed height).
 */

/** Where a text is shown: a block that keeps its line breaks, or a single line. */
export type DisplayShape = 'block' | 'line';

/** Longest page title (the confirm page's `title`, also the document title), in characters. */
export const MAX_TITLE_LENGTH = 100;
/** Longest button label (the confirm page's `confirmLabel` and `cancelLabel`), in characters. */
export const MAX_BUTTON_LABEL_LENGTH = 40;
/** Longest hosted form field title or option title, in characters. */
export const MAX_FIELD_TITLE_LENGTH = 120;
/** Most combining marks kept on one character. */
const MAX_COMBINING_MARKS = 4;

const LINE_BREAKS = /\r\n?|[\u0085\u2028\u2029]/g;
// eslint-disable-next-line no-control-regex -- control characters are what this removes
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u206F]/g;
const COMBINING_RUN = new RegExp(`(\\p{M}{${MAX_COMBINING_MARKS}})\\p{M}+`, 'gu');
/** Characters that show nothing: a line made only of them is blank. */
const INVISIBLE = '\\s\\u00AD\\u115F\\u1160\\u180E\\u200B-\\u200D\\u2060-\\u2064\\u2800\\u3164\\uFEFF\\uFFA0';
const BLANK_LINE = new RegExp(`^[${INVISIBLE}]*$`, 'u');

/** Every control character (C0, DEL, C1) and every line break: a name has none, so they are removed, not spaced. */
// eslint-disable-next-line no-control-regex -- control characters are what this removes
const NAME_CONTROLS = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/g;
/**
 * Characters that show nothing and join nothing (zero-width space, Mongolian vowel separator, word joiner and the
 * invisible operators, the byte order mark): in a name they make two names that read the same differ.
 */
const ZERO_WIDTH = /[\u180E\u200B\u2060-\u2064\uFEFF]/g;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
/** Printable ASCII and spaces only: none of the rules above changes such a text but the trimming and spacing. */
const PLAIN = /^[\x20-\x7E]*$/;

/**
 * `text` as a page may show it (see the rules above). Used for every text that came from the tool; never for
 * an answer (what a person types is stored as typed).
 * @param shape `block` keeps line breaks (one blank line at most between paragraphs); `line` makes one line.
 * @param maxLength `line` only: the most characters shown, the last being "…" when the text was longer.
 * @default shape `block`, maxLength unlimited
 */
export function displayText(text: string, shape: DisplayShape = 'block', maxLength = Infinity): string {
  // Most texts (a tool's English message, a label) are plain: one line, nothing to remove, no grapheme to count.
  if (PLAIN.test(text)) {
    if (shape === 'block') return text.trimEnd().length === 0 ? '' : text.trimEnd();
    return capped(text.replace(/ +/g, ' ').trim(), maxLength);
  }
  const cleaned = text
    .replace(LINE_BREAKS, '\n')
    .replace(/\t/g, ' ')
    .replace(CONTROLS, '')
    .replace(BIDI_CONTROLS, '')
    .replace(COMBINING_RUN, '$1');
  if (shape === 'block') return blockOf(cleaned);
  return capped(cleaned.replace(/\s+/g, ' ').trim(), maxLength);
}

/**
 * A name that came from a browser (an uploaded file's), as a tool, an `uploadSink` or a page may show it: the rules
 * of `displayText` for one line, with these differences: every control character and line break is removed rather
 * than made a space (a name has none), and so are the zero-width characters that show nothing (U+200B, U+180E,
 * U+2060–U+2064, U+FEFF); the joiners (U+200C, U+200D) stay, as scripts and emoji need them. The result is
 * NFC-normalised (a decomposed "é" is one character), so a name reads as what it is: `invoice\u202Efdp.exe` is
 * `invoicefdp.exe`, never a name that displays as "invoiceexe.pdf".
 * @param maxLength the most characters kept (user-perceived), the last being "…" when the name was longer.
 */
export function displayName(name: string, maxLength: number): string {
  const cleaned = name
    .replace(NAME_CONTROLS, '')
    .replace(BIDI_CONTROLS, '')
    .replace(ZERO_WIDTH, '')
    .normalize('NFC')
    .replace(COMBINING_RUN, '$1');
  return capped(cleaned.replace(/\s+/g, ' ').trim(), maxLength);
}

/** Blank lines collapsed to one, none at either end, trailing spaces dropped. */
function blockOf(text: string): string {
  const lines: string[] = [];
  let blank = true; // at the start, a blank line is dropped
  for (const line of text.split('\n')) {
    if (BLANK_LINE.test(line)) {
      if (!blank) lines.push('');
      blank = true;
    } else {
      lines.push(line.trimEnd());
      blank = false;
    }
  }
  if (lines.at(-1) === '') lines.pop();
  return lines.join('\n');
}

/** At most `maxLength` user-perceived characters, the last one "…" when some were cut. */
function capped(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  const kept: string[] = [];
  for (const { segment } of graphemes.segment(text)) {
    if (kept.length === maxLength) {
      kept[maxLength - 1] = '…';
      return kept.join('').replace(/\s+…$/u, '…');
    }
    kept.push(segment);
  }
  return text;
}
