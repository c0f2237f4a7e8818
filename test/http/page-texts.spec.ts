/**
 * Every text a page shows from the elicitation goes through `displayText` on its way to the template: the
 * renderer for the page contexts (heading, message, warning, button labels), `fieldViews` for a hosted form's
 * titles, descriptions and option titles. The browser's view of the same is e2e/security/page-spoofing.e2e-spec.ts.
 */
import { describe, expect, it } from '@jest/globals';
import type { ResolvedElicitationOptions } from '../../src/options/resolved-options.js';
import { formPlanOf } from '../../src/http/form-plan.js';
import { fieldViews, initialInput } from '../../src/http/form-view.js';
import { TemplateRenderer } from '../../src/http/template-renderer.js';
import type { PageContexts } from '../../src/http/page-contexts.js';
import { PAGE_MESSAGES } from '../../src/messages/default-messages.js';
import { MAX_BUTTON_LABEL_LENGTH, MAX_FIELD_TITLE_LENGTH, MAX_TITLE_LENGTH } from '../../src/security/display-text.js';
import { PageCatalogs } from '../../src/messages/locales.js';

/** Every page in the default locale, English. */
const FRAME = { locale: new PageCatalogs().defaultLocale };

const SPOOF = 'Deploy web\u202Eyrtnomem\u202C\u0000\u0007' + '\n'.repeat(28) + 'to production?';
/** Controls but the line feed, and the bidi formatting characters. */
// eslint-disable-next-line no-control-regex -- control characters are what must not be there
const FORBIDDEN = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u206F]/u;

const renderer = new TemplateRenderer({
  title: 'Acme',
  primaryColor: '#2563eb',
  baseUrl: 'http://localhost:3000',
  routePrefix: 'elicit',
} as ResolvedElicitationOptions);

const confirmContext = (texts: Partial<PageContexts['confirm']>): PageContexts['confirm'] => ({
  heading: SPOOF,
  message: SPOOF,
  warning: SPOOF,
  confirmLabel: SPOOF,
  cancelLabel: SPOOF,
  maxLength: 4096,
  error: null,
  csrf: 'token',
  labels: PAGE_MESSAGES.labels,
  ...texts,
});

/** The escaped text of the first element matching `open` (an opening tag's start) up to its closing tag. */
function elementText(html: string, open: string, close: string): string {
  const start = html.indexOf(open);
  if (start < 0) throw new Error(`no ${open} in the page`);
  const from = html.indexOf('>', start) + 1;
  return html.slice(from, html.indexOf(close, from));
}

describe('page texts from the elicitation', () => {
  describe('the confirm page', () => {
    const html = renderer.render('confirm', confirmContext({}), 'nonce', FRAME);

    it('shows no control or bidi character anywhere', () => {
      expect(html).not.toMatch(FORBIDDEN);
    });

    it('puts the title on one line in <title> and the isolated <h1>', () => {
      expect(html).toContain('<title>Deploy webyrtnomem to production? · Acme</title>');
      expect(html).toContain('<h1 dir="auto">Deploy webyrtnomem to production?</h1>');
    });

    it('quotes the message and the warning in the captioned box, blank lines collapsed, each isolated', () => {
      const quote = elementText(html, '<figure class="quote">', '</figure>');
      expect(quote).toContain(`<figcaption>${PAGE_MESSAGES.labels.fromAssistant}</figcaption>`);
      expect(quote).toContain('<p class="message" dir="auto" tabindex="0">Deploy webyrtnomem\n\nto production?</p>');
      expect(quote).toContain('<p class="warning" role="note" dir="auto" tabindex="0">Deploy webyrtnomem\n\nto production?</p>');
    });

    it('puts each button label on one isolated line', () => {
      expect(html).toContain('dir="auto" value="confirm" class="primary">Deploy webyrtnomem to production?</button>');
      expect(html).toContain('dir="auto" value="cancel">Deploy webyrtnomem to production?</button>');
    });

    it('caps the title and the button labels', () => {
      const long = confirmContext({ heading: 'T'.repeat(500), confirmLabel: 'C'.repeat(500), cancelLabel: 'N'.repeat(500) });
      const page = renderer.render('confirm', long, 'nonce', FRAME);
      expect(elementText(page, '<h1', '</h1>')).toBe(`${'T'.repeat(MAX_TITLE_LENGTH - 1)}…`);
      expect(elementText(page, 'value="confirm"', '</button>')).toBe(`${'C'.repeat(MAX_BUTTON_LABEL_LENGTH - 1)}…`);
      expect(elementText(page, 'value="cancel"', '</button>')).toBe(`${'N'.repeat(MAX_BUTTON_LABEL_LENGTH - 1)}…`);
    });

    it('renders no warning box without a warning', () => {
      expect(renderer.render('confirm', confirmContext({ warning: null }), 'nonce', FRAME)).not.toContain('class="warning"');
    });
  });

  it('quotes the api-key page message the same way', () => {
    const { warning: _w, confirmLabel: _c, cancelLabel: _n, ...context } = confirmContext({ heading: 'An API key is needed' });
    const html = renderer.render('api-key', context, 'nonce', FRAME);
    expect(html).not.toMatch(FORBIDDEN);
    expect(html).toContain('<p class="message" dir="auto" tabindex="0">Deploy webyrtnomem\n\nto production?</p>');
  });

  describe('the hosted form', () => {
    const plan = formPlanOf({
      form: {
        schema: {
          type: 'object',
          properties: {
            target: { type: 'string', title: SPOOF, description: SPOOF },
            env: { type: 'string', title: SPOOF, enum: ['prod', 'dev'], enumNames: [SPOOF, 'x'.repeat(500)] },
            tags: { type: 'array', title: SPOOF, items: { anyOf: [{ const: 'a', title: SPOOF }] } },
            ok: { type: 'boolean', title: SPOOF },
            blank: { type: 'string', title: '\u202E\u0000' },
          },
          required: ['target'],
        },
      },
    });
    const fields = fieldViews(plan, initialInput(plan), PAGE_MESSAGES, [{ field: 'target', message: 'is required' }]);

    it('shows every title, description and option title on one line, without controls', () => {
      for (const field of fields.slice(0, 4)) expect(field.label).toBe('Deploy webyrtnomem to production?');
      expect(fields[0].help).toBe('Deploy webyrtnomem to production?');
      expect(fields[0].error).toBe('Deploy webyrtnomem to production? is required.');
      expect(fields[1].options.map((o) => o.title)).toEqual([
        PAGE_MESSAGES.form.noChoice,
        'Deploy webyrtnomem to production?',
        `${'x'.repeat(MAX_FIELD_TITLE_LENGTH - 1)}…`,
      ]);
      expect(fields[2].options.map((o) => o.title)).toEqual(['Deploy webyrtnomem to production?']);
      // Values are what the page posts: never changed.
      expect(fields[1].options.map((o) => o.value)).toEqual(['', 'prod', 'dev']);
    });

    it('labels a field whose title shows nothing by its name', () => {
      expect(fields[4].label).toBe('blank');
    });

    it('renders a page with no control or bidi character, labels isolated', () => {
      const html = renderer.render(
        'form',
        {
          heading: PAGE_MESSAGES.headings.form,
          message: SPOOF,
          fields,
          hasRequired: true,
          error: null,
          csrf: 'token',
          labels: PAGE_MESSAGES.labels,
        },
        'nonce',
        FRAME,
      );
      expect(html).not.toMatch(FORBIDDEN);
      expect(html).toContain('<label for="f0"><bdi>Deploy webyrtnomem to production?</bdi> <span class="required"');
      expect(html).toContain('<legend><bdi>Deploy webyrtnomem to production?</bdi></legend>');
      expect(html).toContain('<label for="f3" dir="auto">Deploy webyrtnomem to production?</label>');
      expect(html).toContain('<option value="prod" dir="auto">Deploy webyrtnomem to production?</option>');
    });
  });
});
