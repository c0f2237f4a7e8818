import request from 'supertest';

type Target = Parameters<typeof request>[0];

/** The CSRF pair a page render hands out: the form token and the nonce cookie. */
export interface CsrfPair {
  token: string;
  cookie: string;
}

/** GETs a page as the browser would and reads its CSRF token and nonce cookie. */
export async function csrfFor(target: Target, pagePath: string, headers: Record<string, string> = {}): Promise<CsrfPair> {
  const page = await request(target).get(pagePath).set(headers);
  const token = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
  const setCookie = ([] as string[]).concat(page.headers['set-cookie'] ?? []).find((c) => c.startsWith('elicit_csrf='));
  if (!token || !setCookie) throw new Error(`no CSRF pair on ${pagePath} (status ${page.status})`);
  return { token, cookie: setCookie.split(';')[0] };
}

/**
 * Submits a page's form like a browser: GET the page (token + cookie), then POST the form with them.
 * `headers` identify the browser user (a test header or a `Cookie`); the CSRF cookie is added to it.
 */
export async function submitForm(
  target: Target,
  pagePath: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<request.Response> {
  const { token, cookie } = await csrfFor(target, pagePath, headers);
  return request(target)
    .post(pagePath)
    .set({ ...headers, Cookie: [headers.Cookie, cookie].filter(Boolean).join('; ') })
    .type('form')
    .send({ ...form, _csrf: token });
}

/** POSTs a form with a CSRF pair obtained earlier (e.g. to replay it, or to post as another user). */
export function postForm(
  target: Target,
  pagePath: string,
  form: Record<string, string>,
  pair: CsrfPair,
  headers: Record<string, string> = {},
): request.Test {
  return request(target)
    .post(pagePath)
    .set({ ...headers, Cookie: [headers.Cookie, pair.cookie].filter(Boolean).join('; ') })
    .type('form')
    .send({ ...form, _csrf: pair.token });
}
