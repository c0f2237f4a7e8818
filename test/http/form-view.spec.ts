/**
 * The hosted form's fields as the template renders them: the control per kind, the attributes the schema gives,
 * what is shown again (defaults, the input of a failed post, never a secret), the options and their empty first
 * choice, the validator's issues in the page's language, and every title through `displayText`.
 */
import { describe, expect, it } from '@jest/globals';
import { formPlanOf, type FormPlan } from '../../src/http/form-plan.js';
import { fieldViews, initialInput, toDateTimeLocal, type FieldView } from '../../src/http/form-view.js';
import type { FieldIssue } from '../../src/errors/elicitation-validation.error.js';
import type { FormSchema } from '../../src/forms/form-schema.js';
import { DE_MESSAGES } from '../../src/messages/catalogs/de.js';
import { PAGE_MESSAGES } from '../../src/messages/default-messages.js';

const plan = (properties: FormSchema['properties'], required: string[] = [], secretFields: string[] = []): FormPlan =>
  formPlanOf({ form: { schema: { type: 'object', properties, required }, secretFields } });

const viewOf = (p: FormPlan, name: string, views: FieldView[]): FieldView => views[p.fields.findIndex((f) => f.name === name)];

describe('toDateTimeLocal', () => {
  it.each([
    ['2025-01-02T03:04:05Z', '2025-01-02T03:04:05'],
    ['2025-01-02T03:04:05+02:00', '2025-01-02T01:04:05'],
    ['2025-01-02T03:04:05.678Z', '2025-01-02T03:04:05'],
    ['not a time', ''],
    ['+275760-09-13T00:00:00Z', ''],
  ])('%j → %j', (iso, local) => {
    expect(toDateTimeLocal(iso)).toBe(local);
  });
});

describe('initialInput', () => {
  it('the defaults as the controls show them; never a secret field default', () => {
    const p = plan(
      {
        name: { type: 'string', default: 'Al' },
        age: { type: 'integer', default: 7 },
        agree: { type: 'boolean', default: true },
        off: { type: 'boolean', default: false },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: ['b'] },
        when: { type: 'string', format: 'date-time', default: '2025-01-02T03:04:05+01:00' },
        pin: { type: 'string', default: '1234' },
        none: { type: 'string' },
      },
      [],
      ['pin'],
    );
    expect(initialInput(p)).toEqual({ name: 'Al', age: '7', agree: true, off: false, tags: ['b'], when: '2025-01-02T02:04:05' });
  });
});

describe('fieldViews', () => {
  it('text, number and date inputs: their type and the attributes their schema gives', () => {
    const p = plan({
      name: { type: 'string', minLength: 2, maxLength: 10 },
      email: { type: 'string', format: 'email' },
      site: { type: 'string', format: 'uri' },
      day: { type: 'string', format: 'date' },
      when: { type: 'string', format: 'date-time' },
      age: { type: 'integer', minimum: 0, maximum: 120 },
      ratio: { type: 'number' },
    });
    const views = fieldViews(p, {}, PAGE_MESSAGES);
    expect(views.map((v) => [v.name, v.inputType, v.minLength, v.maxLength, v.min, v.max, v.step])).toEqual([
      ['name', 'text', '2', '10', null, null, null],
      ['email', 'email', null, null, null, null, null],
      ['site', 'url', null, null, null, null, null],
      ['day', 'date', null, null, null, null, null],
      ['when', 'datetime-local', null, null, null, null, '1'],
      ['age', 'number', null, null, '0', '120', '1'],
      ['ratio', 'number', null, null, null, null, 'any'],
    ]);
    expect(views.every((v) => v.isInput && !v.isCheckbox && !v.isSelect && !v.isMulti)).toBe(true);
    expect(viewOf(p, 'when', views).help).toBe(PAGE_MESSAGES.form.timeInUtc);
  });

  it('shows the kept input again, but never a secret: a password input, autocomplete off, no number bounds', () => {
    const p = plan(
      {
        name: { type: 'string' },
        key: { type: 'string', minLength: 8 },
        pin: { type: 'integer', minimum: 1000 },
        rate: { type: 'number' },
      },
      [],
      ['key', 'pin', 'rate'],
    );
    const views = fieldViews(p, { name: 'Al', key: 'sk-live-123', pin: '4321', rate: '0.5' }, PAGE_MESSAGES);
    expect(views.map((v) => [v.name, v.value, v.inputType, v.autocomplete, v.inputMode, v.min, v.step])).toEqual([
      ['name', 'Al', 'text', null, null, null, null],
      ['key', null, 'password', 'off', null, null, null],
      ['pin', null, 'password', 'off', 'numeric', null, null],
      ['rate', null, 'password', 'off', 'decimal', null, null],
    ]);
    expect(JSON.stringify(views)).not.toMatch(/sk-live-123|4321/);
  });

  it('asks for a secret again once a post failed', () => {
    const p = plan({ key: { type: 'string' }, name: { type: 'string' } }, [], ['key']);
    const issues: FieldIssue[] = [{ field: 'name', message: 'is required' }];
    expect(fieldViews(p, {}, PAGE_MESSAGES)[0].help).toBeNull();
    expect(fieldViews(p, {}, PAGE_MESSAGES, issues)[0].help).toBe(PAGE_MESSAGES.form.enterSecretAgain);
    expect(fieldViews(p, {}, PAGE_MESSAGES, issues)[1].help).toBeNull();
  });

  it('a select without a default starts with an empty choice: a placeholder when required, "(none)" when not', () => {
    const p = plan(
      {
        req: { type: 'string', enum: ['a', 'b'] },
        opt: { type: 'string', oneOf: [{ const: 'x', title: 'Ex' }] },
        def: { type: 'string', enum: ['a', 'b'], default: 'b' },
      },
      ['req'],
    );
    const fresh = fieldViews(p, initialInput(p), PAGE_MESSAGES);
    expect(fresh[0].options.map((o) => [o.id, o.value, o.title, o.selected])).toEqual([
      ['f0-none', '', PAGE_MESSAGES.form.choosePlaceholder, true],
      ['f0-o0', 'a', 'a', false],
      ['f0-o1', 'b', 'b', false],
    ]);
    expect(fresh[1].options.map((o) => [o.value, o.title, o.selected])).toEqual([
      ['', PAGE_MESSAGES.form.noChoice, true],
      ['x', 'Ex', false],
    ]);
    expect(fresh[2].options.map((o) => [o.value, o.selected])).toEqual([
      ['a', false],
      ['b', true],
    ]);
    const again = fieldViews(p, { req: 'b' }, PAGE_MESSAGES);
    expect(again[0].options.filter((o) => o.selected).map((o) => o.value)).toEqual(['b']);
    expect(again[0]).toMatchObject({ isSelect: true, isInput: false, inputType: null, value: null, required: true });
  });

  it('a multi-select: its options checked from the input, its bounds said in the help', () => {
    const items = { type: 'string', enum: ['a', 'b', 'c'] } as const;
    const p = plan({
      both: { type: 'array', items, minItems: 1, maxItems: 2 },
      least: { type: 'array', items, minItems: 1 },
      most: { type: 'array', items: { anyOf: [{ const: 'a', title: 'Ay' }] }, maxItems: 2 },
      free: { type: 'array', items },
    });
    const views = fieldViews(p, { both: ['a', 'c'] }, PAGE_MESSAGES);
    expect(views[0].options.map((o) => [o.id, o.value, o.checked, o.selected])).toEqual([
      ['f0-o0', 'a', true, false],
      ['f0-o1', 'b', false, false],
      ['f0-o2', 'c', true, false],
    ]);
    expect(views.map((v) => v.help)).toEqual([
      PAGE_MESSAGES.form.chooseBetween(1, 2),
      PAGE_MESSAGES.form.chooseAtLeast(1),
      PAGE_MESSAGES.form.chooseAtMost(2),
      null,
    ]);
    expect(views[2].options[0].title).toBe('Ay');
    expect(views.every((v) => v.isMulti && v.inputType === null)).toBe(true);
  });

  it('a checkbox: checked from the input, never required (that would force it on)', () => {
    const p = plan({ agree: { type: 'boolean' } }, ['agree']);
    expect(fieldViews(p, { agree: true }, PAGE_MESSAGES)[0]).toMatchObject({
      isCheckbox: true,
      checked: true,
      required: false,
      inputType: null,
    });
    expect(fieldViews(p, { agree: false }, PAGE_MESSAGES)[0].checked).toBe(false);
    expect(fieldViews(p, { agree: 'true' }, PAGE_MESSAGES)[0].checked).toBe(false);
  });

  it("the validator's issues beside their fields, in the page's language, the first per field; described by help and error", () => {
    const p = plan({ name: { type: 'string', title: 'Name', description: 'As on your passport' }, age: { type: 'integer' } });
    const issues: FieldIssue[] = [
      Object.defineProperty({ field: 'name', message: 'is required' }, 'rule', { value: { code: 'required' } }),
      { field: 'name', message: 'second issue, not shown' },
      { field: 'age', message: 'must be even' },
    ];
    const german = fieldViews(p, {}, DE_MESSAGES, issues);
    expect(german[0].error).toBe(DE_MESSAGES.form.fieldError('Name', DE_MESSAGES.validation.problem({ code: 'required' })));
    expect(german[0].error).not.toBe(PAGE_MESSAGES.form.fieldError('Name', 'is required'));
    expect(german[1].error).toBe(DE_MESSAGES.form.fieldError('age', 'must be even'));
    expect(german[0]).toMatchObject({
      help: 'As on your passport',
      helpId: 'f0-help',
      errorId: 'f0-error',
      describedBy: 'f0-help f0-error',
    });
    expect(german[1].describedBy).toBe('f1-error');
    expect(fieldViews(p, {}, PAGE_MESSAGES)[0].describedBy).toBe('f0-help');
    expect(fieldViews(p, {}, PAGE_MESSAGES)[1].describedBy).toBeNull();
  });

  it('titles and descriptions through displayText: one line, bidi controls gone, capped; an empty title falls back to the name, then the position', () => {
    const p = plan({
      a: { type: 'string', title: 'Pay\u202Eyap\n to', description: 'line one\n\nline two' },
      b: { type: 'string', title: 'x'.repeat(200) },
      '\u202E': { type: 'string', title: '\u200E' },
      s: { type: 'string', enum: ['v'], enumNames: ['\u202E'] },
    });
    const views = fieldViews(p, {}, PAGE_MESSAGES);
    expect(views[0].label).toBe('Payyap to');
    expect(views[0].help).toBe('line one line two');
    expect([...views[1].label]).toHaveLength(120);
    expect(views[1].label.endsWith('…')).toBe(true);
    expect(views[2].label).toBe('3');
    expect(views[3].options.at(-1)!.title).toBe('v');
  });
});
