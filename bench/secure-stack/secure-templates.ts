/**
 * The secure stack's pages (bench/secure-stack): Handlebars templates of the same api-key page and done page as the
 * module's (the same markup, the same texts in English), compiled once at start-up with the `handlebars` package and
 * rendered per request. No view engine (`hbs`, `@fastify/view`): it would add a lookup per render, and the baseline
 * should be the lean version of what a Nest user writes.
 */
import Handlebars from 'handlebars';

const LAYOUT = `<!doctype html>
<html lang="en" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{{heading}} · {{title}}</title>
<link rel="stylesheet" nonce="{{styleNonce}}" href="/assets/page.css">
<style nonce="{{styleNonce}}">:root { --accent: #2563eb; --on-accent: #ffffff; }</style>
</head>
<body>
<header>
<span>{{title}}</span>
</header>
<main>
<h1 dir="auto">{{heading}}</h1>
{{#if expiresAt}}
<p class="expiry" id="expiry" data-expires-at="{{expiresAt}}" data-soon="Less than a minute left: answer now, or ask for more time." data-expired="This request has expired. Ask the assistant to start again.">This request expires <time datetime="{{expiresAt}}">{{expiresIn}}</time> ({{expiresOn}}).</p>
<p class="expiry-soon" id="expiry-soon" role="status" aria-live="polite"></p>
<form class="extend" method="post" action="/elicit/{{id}}/api-key/extend">
  <input type="hidden" name="_csrf" value="{{csrf}}">
  <button type="submit" name="action" value="extend">Need more time?</button>
  <p class="muted">Adds 10 minutes, once.</p>
</form>
{{/if}}
{{> @partial-block }}
</main>
<script nonce="{{scriptNonce}}" src="/assets/page.js" defer></script>
</body>
</html>
`;

const API_KEY = `{{#> layout}}
<figure class="quote">
  <figcaption>Request from the assistant</figcaption>
  <p class="message" dir="auto" tabindex="0">{{message}}</p>
</figure>
{{#if error}}
<div class="error-summary" id="error-summary" role="alert" tabindex="-1" aria-labelledby="error-summary-title">
  <h2 id="error-summary-title">There is a problem</h2>
  <p><a href="#apiKey" id="error">{{error}}</a></p>
</div>
{{/if}}
<form method="post" autocomplete="off">
  <input type="hidden" name="_csrf" value="{{csrf}}">
  <label for="apiKey">API key</label>
  <input type="password" id="apiKey" name="apiKey" autocomplete="off" spellcheck="false" required maxlength="{{maxLength}}"{{#if error}} aria-invalid="true" aria-describedby="error"{{/if}}>
  <p class="muted">The key is sent to this server only. It is never shown to the AI assistant.</p>
  <div class="actions">
    <button type="submit" name="action" value="submit" class="primary">Submit</button>
    <button type="submit" name="action" value="cancel" formnovalidate>Cancel</button>
  </div>
</form>
{{/layout}}
`;

const DONE = `{{#> layout}}
<figure class="quote">
  <figcaption>Request from the assistant</figcaption>
  <p class="message" dir="auto">{{message}}</p>
</figure>
<p>{{text}}</p>
<p class="muted">You can close this window and go back to the assistant.</p>
{{/layout}}
`;

/** What every page reads (strict mode: each field must be there). */
interface PageContext {
  title: string;
  heading: string;
  styleNonce: string;
  scriptNonce: string;
  message: string;
  /** The expiry line and the extend form, on a pending request's page; null elsewhere. */
  expiresAt: string | null;
  expiresIn: string;
  expiresOn: string;
  id: string;
  csrf: string;
}

export interface SecureTemplates {
  apiKey: Handlebars.TemplateDelegate<PageContext & { maxLength: number; error: string | null }>;
  done: Handlebars.TemplateDelegate<PageContext & { text: string }>;
}

export function compileSecureTemplates(): SecureTemplates {
  const handlebars = Handlebars.create();
  handlebars.registerPartial('layout', handlebars.compile(LAYOUT, { strict: true }));
  return {
    apiKey: handlebars.compile(API_KEY, { strict: true }),
    done: handlebars.compile(DONE, { strict: true }),
  };
}
