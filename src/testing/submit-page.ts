/**
 * Submits one of the module's pages (api-key, confirm, hosted form) over HTTP the way a browser does, for
 * tests: no browser, global `fetch` only.
 */

/** A field's value: a string as typed, a number or boolean as its text, an array as repeated keys. */
export type PageFieldValue = string | number | boolean | ReadonlyArray<string | number>;

/** Options of {@link submitPage}: who the browser is. */
export interface SubmitPageOptions {
  /**
   * The browser's cookies (your app's session, e.g. `demo_user=alice`), sent on the GET and the POST with
   * the page's CSRF cookie added. @default none
   */
  cookie?: string;
  /** Further headers sent on the GET and the POST (e.g. an `Authorization` your `resolvePageUser` reads). @default none */
  headers?: Record<string, string>;
}

/** How a page answered. */
export interface SubmitPageResult {
  /** The HTTP status: of the POST, or of the GET when it was not 200 (nothing was posted then). */
  status: number;
  /** The visible text of the page that answered: tags, styles and the head left out, whitespace collapsed. */
  text: string;
}

/** Name of the CSRF nonce cookie the pages set (`src/http/page-security.ts`). */
const CSRF_COOKIE = 'elicit_csrf';
const CSRF_FIELD = '_csrf';

/**
 * GETs the page at `url`, then posts its form as a browser would after the user filled in `fields`:
 * `application/x-www-form-urlencoded`, every control the page has, in page order, with its current value
 * (the CSRF token and other hidden inputs, pre-filled defaults, checked boxes, selected options), except that
 * a field you give replaces the visible controls of that name (arrays post as repeated keys, booleans and
 * numbers as their text). Unless `fields` has an `action`, the page's first submit button is pressed
 * (`submit` on the api-key and form pages, `confirm` on the confirm page), as Enter does. The POST carries
 * your cookies plus the ones the page set (its CSRF cookie) and an `Origin` equal to the page's.
 *
 * Field names are the page's control names: `apiKey` on the api-key page, none on the confirm page
 * (`{ action: 'cancel' }` cancels there and on the other pages), the form's field names on a hosted form
 * (`_f<index>` for the few a post cannot carry as they are; see "Hosted form page").
 *
 * A GET that does not answer 200 (401, 403, 404, 409, 410, a 303 to your login page, ...) is returned as
 * it is, without posting. Redirects are never followed. Throws when a 200 page has no form with a CSRF token
 * or sets no CSRF cookie.
 */
export async function submitPage(
  url: string,
  fields: Readonly<Record<string, PageFieldValue>> = {},
  options: SubmitPageOptions = {},
): Promise<SubmitPageResult> {
  const { cookie: cookieHeader, rest: headers } = splitCookieHeader(options.headers ?? {});
  const browserCookies = [options.cookie, cookieHeader].filter((c): c is string => !!c);

  const page = await fetch(url, {
    headers: { ...headers, ...(browserCookies.length ? { Cookie: browserCookies.join('; ') } : {}) },
    redirect: 'manual',
  });
  const html = await page.text();
  if (page.status !== 200) return { status: page.status, text: visibleText(html) };

  const form = readForm(html);
  if (!form.pairs.some((pair) => pair.hidden && pair.name === CSRF_FIELD)) {
    throw new Error(`submitPage: ${url} answered 200 without a form carrying a CSRF token.`);
  }
  const setCookies = page.headers.getSetCookie().map((c) => c.split(';')[0].trim());
  if (!setCookies.some((c) => c.startsWith(`${CSRF_COOKIE}=`))) {
    throw new Error(`submitPage: ${url} set no ${CSRF_COOKIE} cookie.`);
  }

  const given = new Map(Object.entries(fields).map(([name, value]) => [name, asStrings(value)]));
  const body = new URLSearchParams();
  const placed = new Set<string>();
  // The page's controls in order; a field given replaces its visible controls where the first one stood.
  for (const pair of form.pairs) {
    const values = pair.hidden ? undefined : given.get(pair.name);
    if (values === undefined) body.append(pair.name, pair.value);
    else if (!placed.has(pair.name)) {
      for (const value of values) body.append(pair.name, value);
      placed.add(pair.name);
    }
  }
  for (const [name, values] of given) {
    if (!placed.has(name)) for (const value of values) body.append(name, value);
  }
  if (!given.has('action') && form.defaultButton) body.append(...form.defaultButton);

  const answer = await fetch(url, {
    method: 'POST',
    headers: {
      ...headers,
      Cookie: [...browserCookies, ...setCookies].join('; '),
      Origin: new URL(url).origin,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: body.toString(),
    redirect: 'manual',
  });
  return { status: answer.status, text: visibleText(await answer.text()) };
}

/** A field's value as the strings it posts. */
function asStrings(value: PageFieldValue): string[] {
  return typeof value === 'object' ? value.map(String) : [String(value)];
}

/** A `Cookie` header given in `headers` (any case) apart from the other headers. */
function splitCookieHeader(headers: Record<string, string>): { cookie?: string; rest: Record<string, string> } {
  const rest: Record<string, string> = {};
  let cookie: string | undefined;
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'cookie') cookie = value;
    else rest[name] = value;
  }
  return { cookie, rest };
}

/** One name/value pair a form posts; `hidden` pairs are posted whatever the fields say. */
interface FormPair {
  name: string;
  value: string;
  hidden: boolean;
}

/** Input types that post nothing by themselves (buttons) or that a test cannot fill (files). */
const NOT_POSTED = new Set(['submit', 'button', 'reset', 'image', 'file']);

/**
 * The page's post form as a browser would submit it untouched: every enabled control's current value in
 * document order (hidden inputs, pre-filled inputs, checked boxes, selected options), and the submit button
 * Enter presses. The page's own form, that is: not the "Need more time?" form (`action` ending in `/extend`).
 */
function readForm(html: string): { pairs: FormPair[]; defaultButton?: [string, string] } {
  const forms = html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi);
  const formHtml = [...forms].find(([, attrs]) => !/\baction="[^"]*\/extend"/i.test(attrs))?.[2] ?? '';
  const pairs: FormPair[] = [];
  const controls = /<input\b([^>]*)>|<select\b([^>]*)>([\s\S]*?)<\/select>|<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/gi;
  for (const [, inputAttrs, selectAttrs, optionsHtml, textareaAttrs, textareaText] of formHtml.matchAll(controls)) {
    const attrs = attributes(inputAttrs ?? selectAttrs ?? textareaAttrs ?? '');
    const name = attrs.name;
    if (name === undefined || 'disabled' in attrs) continue;
    if (inputAttrs !== undefined) {
      const type = (attrs.type ?? 'text').toLowerCase();
      if (NOT_POSTED.has(type)) continue;
      if ((type === 'checkbox' || type === 'radio') && !('checked' in attrs)) continue;
      const value = attrs.value ?? (type === 'checkbox' || type === 'radio' ? 'on' : '');
      pairs.push({ name, value, hidden: type === 'hidden' });
    } else if (selectAttrs !== undefined) {
      const options = [...(optionsHtml ?? '').matchAll(/<option\b([^>]*)>([^<]*)/gi)].map(([, optionAttrs, label]) => {
        const option = attributes(optionAttrs);
        return { value: option.value ?? decodeEntities(label).trim(), selected: 'selected' in option };
      });
      const selected = options.filter((o) => o.selected);
      // A single select with nothing marked selected shows, and posts, its first option.
      const posted = 'multiple' in attrs ? selected : selected.slice(-1).concat(selected.length ? [] : options.slice(0, 1));
      for (const option of posted) pairs.push({ name, value: option.value, hidden: false });
    } else {
      pairs.push({ name, value: decodeEntities(textareaText ?? '').replace(/^\r?\n/, ''), hidden: false });
    }
  }
  let defaultButton: [string, string] | undefined;
  for (const [, buttonAttrs] of formHtml.matchAll(/<button\b([^>]*)>/gi)) {
    const button = attributes(buttonAttrs);
    if ((button.type ?? 'submit').toLowerCase() !== 'submit') continue;
    if (button.name !== undefined) defaultButton = [button.name, button.value ?? ''];
    break;
  }
  return { pairs, defaultButton };
}

/** A tag's attributes, names lower-cased, values decoded (a bare attribute reads as `''`). */
function attributes(source: string): Record<string, string | undefined> {
  const found: Record<string, string | undefined> = {};
  for (const [, name, doubleQuoted, singleQuoted, bare] of source.matchAll(
    /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g,
  )) {
    found[name.toLowerCase()] = decodeEntities(doubleQuoted ?? singleQuoted ?? bare ?? '');
  }
  return found;
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity: string, code: string) => {
    if (!code.startsWith('#')) return NAMED_ENTITIES[code.toLowerCase()] ?? entity;
    const point = code[1] === 'x' || code[1] === 'X' ? parseInt(code.slice(2), 16) : parseInt(code.slice(1), 10);
    return point <= 0x10ffff ? String.fromCodePoint(point) : entity;
  });
}

/** What a reader of the page sees: the body's text, without head, styles or scripts, whitespace collapsed. */
function visibleText(html: string): string {
  const body = /<body\b[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  const text = body
    .replace(/<(head|style|script|template)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ');
  return decodeEntities(text).replace(/\s+/g, ' ').trim();
}
