// The MCP client side of the consumer test: a plain Node script (no Jest), copied into a fixture by
// scripts/consumer-test.mjs so that it loads what the app installed: the testing kit of the installed package
// (`nestjs-mcp-elicitation/testing`: real SDK 1.x and SDK 2.x clients, `submitPage`) and the SDKs. It drives one
// running app (`node dist/main.js`, CONSUMER_APP=<app>) over Streamable HTTP, prints `PASS <app> | <case> | <ms> ms`
// or `FAIL <app> | <case> | <why>` per case and exits 1 when any failed.
//
//   node mcp-driver.mjs <app> <origin>     app: both-eras | sessions | stateless | binding | mcp-nest
import { createElicitationTestClient, submitPage } from 'nestjs-mcp-elicitation/testing';

const [app, origin] = process.argv.slice(2);
const mcpUrl = `${origin}/mcp`;
/**
 * The README files' bearer tokens (the consumer test starts the apps with MCP_DEV_TOKENS=token-alice=alice); the
 * MCP-Nest snippet's McpAuthGuard checks them too.
 */
const ALICE_MCP = { Authorization: 'Bearer token-alice' };
/** Alice's browser: the app's login stand-in turns the cookie into `req.user`. */
const ALICE_BROWSER = { cookie: 'user=alice' };
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';
const THANKS = { 'api-key': 'Thank you. The API key was received.', confirm: 'Thank you. Your confirmation was received.' };
/** The link result's `_meta` key. */
const PENDING_META = 'nestjs-mcp-elicitation/pending';

const CASES = {
  'both-eras': [
    [
      'SDK 1.x client, form+url, 2025-11-25: connect-service answers -32042 with the URL; page, completion, retry',
      () => minus32042('github'),
    ],
    ['SDK 1.x client, form only, 2025-11-25: connect-service through the form bridge; delete-file in form mode', () => formOnly('gitlab')],
    ['SDK 1.x client, no elicitation, 2025-11-25: connect-service answers the link result; page, retry', () => linkResult('bitbucket')],
    [
      'SDK 2.x client, 2026-07-28: connect-service answers input_required; page, retry',
      () => inputRequired('connect-service', { service: 'gitea' }, 'api-key', 'Connected to gitea'),
    ],
    ['SDK 2.x client, 2026-07-28: delete-file in form mode', () => formMode('2026-07-28')],
  ],
  sessions: [
    [
      'SDK 1.x client, form+url, 2025-11-25: connect-service answers -32042 with the URL; page, completion, retry',
      () => minus32042('github'),
    ],
  ],
  stateless: [
    [
      'SDK 2.x client, 2026-07-28: approve-deploy answers input_required; confirm page, retry',
      () => inputRequired('approve-deploy', { app: 'web' }, 'confirm', 'Deployed web'),
    ],
  ],
  binding: [
    [
      'SDK 2.x server, 2025-11-25 session (SDK 1.x client): connect-service answers -32042 with the URL; page, completion, retry',
      () => minus32042('github'),
    ],
    [
      'SDK 2.x server, 2025-11-25 session (SDK 1.x client): approve-deploy pushes the URL request; page, result',
      () => pushedUrl('approve-deploy', { app: 'api' }, 'Deployed api'),
    ],
  ],
  'mcp-nest': [
    [
      'MCP-Nest, SDK 1.x client, 2025-11-25: approve-deploy pushes the URL request; page, result',
      () => pushedUrl('approve-deploy', { app: 'web' }, 'Deployed web'),
    ],
    [
      'MCP-Nest, SDK 2.x client, 2026-07-28: approve-deploy answers input_required; page, retry',
      () => inputRequired('approve-deploy', { app: 'api' }, 'confirm', 'Deployed api'),
    ],
  ],
};

const cases = CASES[app];
if (!cases || !origin) {
  console.error(`usage: node mcp-driver.mjs <${Object.keys(CASES).join('|')}> <origin>`);
  process.exit(2);
}
let failed = 0;
for (const [name, run] of cases) {
  const started = Date.now();
  try {
    await run();
    console.log(`PASS ${app} | ${name} | ${Date.now() - started} ms`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${app} | ${name} | ${(err instanceof Error ? err.message : String(err)).replace(/\n/g, ' ')}`);
  }
}
process.exit(failed ? 1 : 0);

/** A kit client of alice's, closed after `use`. */
async function withClient(options, use) {
  const client = await createElicitationTestClient({ url: mcpUrl, headers: ALICE_MCP, ...options });
  try {
    return await use(client);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * 2025-11-25, client with form+url: requireAnswer fails the call with -32042 carrying the page URL; the page
 * answered over HTTP; the completion notification names the elicitation; the retry succeeds.
 */
function minus32042(service) {
  return withClient({ era: '2025-11-25' }, async (client) => {
    const first = await outcomeOf(client.callTool('connect-service', { service }));
    if (!first.error || first.error.code !== -32042)
      throw new Error(`expected the call to fail with -32042 and the page URL, got ${describe(first)}`);
    const [asked] = first.error.data?.elicitations ?? [];
    const url = pageUrl(asked?.url, 'api-key');
    if (asked.mode !== 'url' || client.lastUrl() !== url) throw new Error(`-32042 data: ${JSON.stringify(first.error.data)}`);
    const id = url.split('/').at(-2);
    await refusedWithoutCsrf(url);
    await answerPage(url, { apiKey: `key-${service}-0123456789` }, 'api-key');
    await client.completion(id, 5_000).catch(() => {
      throw new Error(`no notifications/elicitation/complete for ${id} within 5 s (got ${JSON.stringify(client.completions)})`);
    });
    expectText(await client.callTool('connect-service', { service }), `Connected to ${service}`, 'the retry');
  });
}

/** 2025-11-25, form-only client: the page question arrives as the form bridge (the page link and a "finished" box). */
function formOnly(service) {
  return withClient(
    {
      era: '2025-11-25',
      capabilities: { form: true },
      answer: async (request) => {
        if (request.mode !== 'form') return { action: 'decline' };
        if (!('finished' in (request.requestedSchema?.properties ?? {}))) return { action: 'accept', content: { confirmed: true } };
        // The person opens the link the form carries, answers the page, then ticks "I have finished on the page".
        const url = pageUrl(new RegExp(`https?://\\S+?/${UUID}/api-key`).exec(request.message)?.[0], 'api-key');
        await answerPage(url, { apiKey: `key-${service}-0123456789` }, 'api-key');
        return { action: 'accept', content: { finished: true } };
      },
    },
    async (client) => {
      expectText(await client.callTool('connect-service', { service }), `Connected to ${service}`, 'connect-service');
      const bridge = client.requests[0];
      if (bridge?.mode !== 'form' || !bridge.requestedSchema?.properties?.finished)
        throw new Error(`the first question was not the form bridge: ${JSON.stringify(bridge)}`);
      expectText(await client.callTool('delete-file', { path: 'a.txt' }), 'Deleted a.txt', 'delete-file');
      const form = client.requests.at(-1);
      if (form?.mode !== 'form' || form.message !== 'Delete a.txt?') throw new Error(`delete-file asked ${JSON.stringify(form)}`);
    },
  );
}

/** 2025-11-25, client without elicitation: a normal tool result with the link; the page; the same call again succeeds. */
function linkResult(service) {
  return withClient({ era: '2025-11-25', capabilities: 'none' }, async (client) => {
    const first = await outcomeOf(client.callTool('connect-service', { service }));
    const pending = first.result?._meta?.[PENDING_META];
    if (!first.result || first.result.isError || pending?.status !== 'pending')
      throw new Error(`expected the link result, got ${describe(first)}`);
    const url = pageUrl(pending.url, 'api-key');
    if (!textOf(first.result).includes(url)) throw new Error(`the link result's text does not carry the page URL: ${textOf(first.result)}`);
    await answerPage(url, { apiKey: `key-${service}-0123456789` }, 'api-key');
    expectText(await client.callTool('connect-service', { service }), `Connected to ${service}`, 'the retry');
  });
}

/** 2026-07-28: the call answers input_required with the page; the kit's client retries until the page is answered. */
function inputRequired(tool, args, page, done) {
  return withClient({ era: '2026-07-28' }, async (client) => {
    const call = client.callTool(tool, args);
    call.catch(() => undefined); // awaited below
    const url = pageUrl(await waitForUrl(client, call), page);
    const asked = client.requests[0];
    if (asked?.mode !== 'url' || asked.url !== url) throw new Error(`input_required carried ${JSON.stringify(client.requests)}`);
    await answerPage(url, {}, page, page === 'api-key' ? { apiKey: 'key-0123456789-modern' } : {});
    expectText(await call, done, 'the retried call');
    if (client.completions.length) throw new Error('a 2026-07-28 client got a completion notification');
  });
}

/** 2025-11-25, client with form+url: requestUrl pushes the URL request and waits in the call until the page is answered. */
function pushedUrl(tool, args, done) {
  return withClient({ era: '2025-11-25' }, async (client) => {
    const call = client.callTool(tool, args);
    call.catch(() => undefined);
    const url = pageUrl(await waitForUrl(client, call), 'confirm');
    if (client.requests[0]?.mode !== 'url' || !client.requests[0].elicitationId)
      throw new Error(`the pushed request: ${JSON.stringify(client.requests)}`);
    await answerPage(url, {}, 'confirm');
    expectText(await call, done, 'the call');
  });
}

/** 2026-07-28 (or 2025-11-25): delete-file asks in form mode and acts on the answer. */
function formMode(era) {
  return withClient(
    { era, capabilities: { form: true }, answer: () => ({ action: 'accept', content: { confirmed: true } }) },
    async (client) => {
      expectText(await client.callTool('delete-file', { path: 'b.txt' }), 'Deleted b.txt', 'delete-file');
      if (client.requests[0]?.mode !== 'form') throw new Error(`delete-file asked ${JSON.stringify(client.requests)}`);
    },
  );
}

/** The page URL the client got, or why the call ended without one. */
async function waitForUrl(client, call) {
  const ended = call.then(
    (result) => ({ result }),
    (error) => ({ error }),
  );
  const first = await Promise.race([client.waitForUrl(10_000).then((url) => ({ url })), ended]);
  if (first.url) return first.url;
  throw new Error(`expected a page URL, the call ended with ${describe(await outcomeOf(call))}`);
}

/**
 * A page URL on this app's origin (`<origin>/elicit/<uuid>/<page>`). The MCP-Nest snippet names its public origin
 * itself (`baseUrl`); its pages are then answered on this app, under the same path.
 */
function pageUrl(url, page) {
  const match = new RegExp(`^(https?://[^/]+)/elicit/${UUID}/${page}$`).exec(url ?? '');
  if (!match) throw new Error(`not a ${page} page URL: ${url}`);
  if (match[1] !== origin) {
    if (app !== 'mcp-nest') throw new Error(`the page URL ${url} is not on the app's origin ${origin} (baseUrl)`);
    return origin + url.slice(match[1].length);
  }
  return url;
}

/** A POST of the page's form without its CSRF pair is refused (403), and nothing is answered. */
async function refusedWithoutCsrf(url) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...ALICE_BROWSER, 'Content-Type': 'application/x-www-form-urlencoded', Origin: origin },
    body: new URLSearchParams({ apiKey: 'no-csrf-0123456789' }).toString(),
    redirect: 'manual',
  });
  await res.text();
  if (res.status !== 403) throw new Error(`a POST without the CSRF pair to ${url} answered ${res.status}, not 403`);
}

/** The page answered as alice's browser: GET (the `_csrf` field and cookie), POST; checks the thank-you page. */
async function answerPage(url, fields, page, extra = {}) {
  const answered = await submitPage(url, { ...fields, ...extra }, ALICE_BROWSER);
  if (answered.status !== 200 || !answered.text.includes(THANKS[page])) {
    throw new Error(`the ${page} page ${url} answered ${answered.status}: ${answered.text.slice(0, 300)}`);
  }
}

async function outcomeOf(call) {
  try {
    return { result: await call };
  } catch (error) {
    return { error };
  }
}

function describe(outcome) {
  if (outcome.result) return `a tool result (isError: ${outcome.result.isError === true}): ${JSON.stringify(textOf(outcome.result))}`;
  const { error } = outcome;
  return `an error (code ${error?.code}): ${error instanceof Error ? error.message : String(error)}`;
}

function textOf(result) {
  return (result.content ?? []).map((block) => block.text ?? '').join('');
}

function expectText(result, text, what) {
  if (result.isError || textOf(result) !== text) throw new Error(`${what}: expected "${text}", got ${describe({ result })}`);
}
