/**
 * Zod forms, by property (fast-check, fixed seed): Zod object forms generated from the field kinds a form
 * converts (random bounds, options, optionality, defaults), answered with random candidates (valid, boundary
 * and wrong values, missing and extra keys). What the definition accepts, Zod accepts with the same value;
 * what Zod accepts, the definition accepts (no unknown keys, no repeated options: the two rules a form adds);
 * and the compiled validator alone (the converted schema, as a client or a page without the Zod schema checks
 * it) disagrees with Zod only where the restricted schema cannot say what Zod checks.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { z } from 'zod';
import { defineForm } from '../../src/forms/define-form.js';
import { compileValidator } from '../../src/forms/form-validator.js';

const RUNS = { seed: 20261123, numRuns: 400 };
const NAMES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];

/** One generated field: how to build it in Zod, and candidate values for it. */
interface FieldPlan {
  kind: string;
  zod: z.ZodType;
  candidates: fc.Arbitrary<unknown>;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const word = fc.stringMatching(/^[a-z]{1,6}$/);
const date = fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2100-12-31T23:59:59Z'), noInvalidDate: true });
const isoDate = date.map((d) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`);
/** Date-ish strings: real dates, impossible days and months, other shapes. */
const dateCandidates = fc.oneof(
  isoDate,
  fc
    .tuple(fc.integer({ min: 1900, max: 2100 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
    .map(([y, m, d]) => `${y}-${pad(m)}-${pad(d)}`),
  fc.constantFrom('2024-02-29', '2023-02-29', '2000-02-29', '1900-02-29', '20240101', '2024-1-1', ''),
);
/** Date-time strings: UTC with and without fractions, offsets, no seconds, lower case, nonsense. */
const dateTimeCandidates = fc.oneof(
  date.map((d) => d.toISOString()),
  date.map((d) =>
    d
      .toISOString()
      .replace('.000Z', 'Z')
      .replace(/\.\d+Z$/, 'Z'),
  ),
  fc.tuple(date, fc.constantFrom('+02:00', '-05:30', 'z', '', '+0200')).map(([d, tz]) => d.toISOString().slice(0, 19) + tz),
  date.map((d) => d.toISOString().slice(0, 16) + 'Z'),
  fc.constantFrom('2026-01-01t10:00:00Z', '2026-13-01T10:00:00Z', '2026-01-01T24:00:00Z', 'yesterday'),
);
const emailCandidates = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.stringMatching(/^[a-z0-9._+-]{1,12}$/), fc.stringMatching(/^[a-z0-9-]{1,10}$/), fc.stringMatching(/^[a-z]{2,5}$/))
      .map(([u, d, t]) => `${u}@${d}.${t}`),
  },
  fc.constantFrom('a@b.co', 'no-at.example.com', 'a@b', 'a b@c.de', 'é@x.com', 'a@-x.com', 'a..b@x.com', '.a@x.com', 'a@x.c'),
  fc.string({ maxLength: 12 }),
);
const urlCandidates = fc.oneof(
  fc.webUrl(),
  fc.constantFrom('https://example.com', 'mailto:a@b.co', 'ftp://x.org/f', 'example.com', 'http://', 'https://ex ample.com', 'urn:isbn:1'),
  fc.string({ maxLength: 12 }),
);

/** Wrong-typed values every field may get. */
const wrongType = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.string({ maxLength: 4 }), fc.constant([]), fc.constant({}));

/** Mostly `likely` (a value the field may accept), sometimes the others. */
function mostly(likely: fc.Arbitrary<unknown>, ...others: fc.Arbitrary<unknown>[]): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: likely, weight: 12 }, ...others.map((arbitrary) => ({ arbitrary, weight: 1 })));
}

/** `value` with weight `yes`, else `undefined` with weight `no`. */
function sometimes<T>(value: fc.Arbitrary<T>, yes: number, no = 1): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: value, weight: yes }, { arbitrary: fc.constant(undefined), weight: no });
}

function optionSet(): fc.Arbitrary<string[]> {
  return fc.uniqueArray(word, { minLength: 1, maxLength: 5 });
}

/** Optional, defaulted (with a default the field accepts) or required, at random. */
function presence(zod: z.ZodType, defaults: fc.Arbitrary<unknown> | undefined): fc.Arbitrary<z.ZodType> {
  const choices: fc.Arbitrary<z.ZodType>[] = [fc.constant(zod), fc.constant(zod.optional())];
  if (defaults) choices.push(defaults.map((d) => zod.default(d as never) as unknown as z.ZodType));
  return fc.oneof(...choices);
}

const bounds = (min: number, max: number) =>
  fc
    .tuple(fc.option(fc.integer({ min, max }), { nil: undefined }), fc.option(fc.integer({ min, max }), { nil: undefined }))
    .map(([a, b]) => (a !== undefined && b !== undefined && a > b ? [b, a] : [a, b]));

const fieldPlans: fc.Arbitrary<FieldPlan>[] = [
  // free text with length bounds
  bounds(0, 6).chain(([min, max]) => {
    let s = z.string();
    if (min !== undefined) s = s.min(min);
    if (max !== undefined) s = s.max(max);
    const fits = fc.string({ minLength: min ?? 0, maxLength: max ?? 8 });
    return presence(s, fits).map((zod) => ({ kind: 'string', zod, candidates: mostly(fits, fc.string({ maxLength: 9 }), wrongType) }));
  }),
  fc
    .constantFrom<[string, z.ZodType, fc.Arbitrary<unknown>]>(
      ['email', z.email(), emailCandidates],
      ['uri', z.url(), urlCandidates],
      ['date', z.iso.date(), dateCandidates],
      ['date-time', z.iso.datetime(), dateTimeCandidates],
    )
    .chain(([kind, s, candidates]) => presence(s, undefined).map((zod) => ({ kind, zod, candidates: mostly(candidates, wrongType) }))),
  // numbers and integers with inclusive bounds
  fc.tuple(fc.boolean(), bounds(-20, 20)).chain(([integer, [min, max]]) => {
    let s = integer ? z.int() : z.number();
    if (min !== undefined) s = s.min(min);
    if (max !== undefined) s = s.max(max);
    const fits = integer ? fc.integer({ min: min ?? -30, max: max ?? 30 }) : fc.double({ min: min ?? -30, max: max ?? 30, noNaN: true });
    const near = fc.oneof(
      fc.integer({ min: -25, max: 25 }),
      fc.double({ min: -25, max: 25, noNaN: true }),
      fc.constantFrom(0.5, -0.5, 1e21),
    );
    return presence(s, fits).map((zod) => ({ kind: integer ? 'integer' : 'number', zod, candidates: mostly(fits, near, wrongType) }));
  }),
  presence(z.boolean(), fc.boolean()).map((zod) => ({ kind: 'boolean', zod, candidates: mostly(fc.boolean(), wrongType) })),
  // single-selects: z.enum, or a union of literals with titles
  fc.tuple(optionSet(), fc.boolean()).chain(([options, titled]) => {
    const s = titled
      ? z.union(
          options.map((o) => z.literal(o).meta({ title: o.toUpperCase() })) as unknown as [z.ZodLiteral<string>, z.ZodLiteral<string>],
        )
      : z.enum(options as [string, ...string[]]);
    const fits = fc.constantFrom(...options);
    return presence(s, fits).map((zod) => ({ kind: titled ? 'titled select' : 'select', zod, candidates: mostly(fits, word, wrongType) }));
  }),
  // multi-selects with item-count bounds
  fc.tuple(optionSet(), bounds(0, 4), fc.boolean()).chain(([options, [min, max], titled]) => {
    const item = titled
      ? z.union(options.map((o) => z.literal(o).meta({ title: o })) as unknown as [z.ZodLiteral<string>, z.ZodLiteral<string>])
      : z.enum(options as [string, ...string[]]);
    let s = z.array(item);
    const lo = Math.min(min ?? 0, options.length);
    const hi = max === undefined ? undefined : Math.max(max, lo);
    if (min !== undefined) s = s.min(lo);
    if (hi !== undefined) s = s.max(hi);
    const fits = fc.subarray(options, { minLength: lo, maxLength: Math.min(hi ?? options.length, options.length) });
    const any = fc.array(fc.oneof(fc.constantFrom(...options), word), { maxLength: 5 });
    return presence(s, fits).map((zod) => ({ kind: 'multi-select', zod, candidates: mostly(fits, any, wrongType) }));
  }),
];

/** A generated form: its Zod object, and candidate answers (missing fields, now and then an extra key). */
const generated = fc
  .uniqueArray(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 5 })
  .chain((names) => fc.tuple(fc.constant(names), fc.tuple(...names.map(() => fc.oneof(...fieldPlans)))))
  .chain(([names, plans]) => {
    const schema = z.object(Object.fromEntries(names.map((n, i) => [n, plans[i].zod])));
    const candidate = fc
      .tuple(
        fc.record(Object.fromEntries(names.map((n, i) => [n, sometimes(plans[i].candidates, 12)]))),
        sometimes(fc.constantFrom('extra', 'alpha2'), 1, 10),
      )
      .map(([c, extra]) => {
        const present = Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined));
        return extra ? { ...present, [extra]: 'x' } : present;
      });
    return fc.tuple(fc.constant(schema), fc.constant(plans.map((p) => p.kind)), fc.array(candidate, { minLength: 1, maxLength: 8 }));
  });

const hasRepeats = (value: unknown) => Array.isArray(value) && new Set(value).size !== value.length;

describe('Zod forms by property (fast-check, fixed seed)', () => {
  it('declares every generated form (the generated kinds all convert and pass the lint)', () => {
    fc.assert(
      fc.property(generated, ([schema]) => {
        expect(defineForm(schema).schema.type).toBe('object');
      }),
      RUNS,
    );
  });

  it('what the definition accepts, Zod accepts, with the same value (defaults included)', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(generated, ([schema, , candidates]) => {
        const form = defineForm(schema);
        for (const candidate of candidates) {
          const ours = form.validate(candidate);
          if (!ours.ok) {
            refused++;
            continue;
          }
          accepted++;
          const zods = schema.safeParse(candidate);
          expect(zods.success).toBe(true);
          expect(ours.value).toEqual(zods.data);
        }
      }),
      RUNS,
    );
    // Not vacuous: both outcomes are common.
    expect(Math.min(accepted, refused)).toBeGreaterThan(300);
  });

  it('what Zod accepts (no unknown keys, no repeated options), the definition accepts', () => {
    let checked = 0;
    fc.assert(
      fc.property(generated, ([schema, , candidates]) => {
        const form = defineForm(schema);
        const fields = Object.keys(schema.shape);
        for (const candidate of candidates) {
          if (Object.keys(candidate).some((k) => !fields.includes(k)) || Object.values(candidate).some(hasRepeats)) continue;
          if (!schema.safeParse(candidate).success) continue;
          checked++;
          const ours = form.validate(candidate);
          if (!ours.ok) throw new Error(`Zod accepts ${JSON.stringify(candidate)}, the form refuses it: ${JSON.stringify(ours.issues)}`);
        }
      }),
      RUNS,
    );
    expect(checked).toBeGreaterThan(300);
  });

  it('the compiled validator alone (the converted schema) accepts more than Zod only for e-mail, date-time and huge integers', () => {
    const looser = new Map<string, string[]>();
    fc.assert(
      fc.property(generated, ([schema, kinds, candidates]) => {
        const form = defineForm(schema);
        const validator = compileValidator<Record<string, unknown>>(form.schema);
        const names = Object.keys(schema.shape);
        for (const candidate of candidates) {
          if (!validator(candidate).ok || schema.safeParse(candidate).success) continue;
          // Which field Zod refuses: each alone, the others as the validator left them.
          for (const issue of schema.safeParse(candidate).error!.issues) {
            const kind = kinds[names.indexOf(String(issue.path[0]))];
            const seen = looser.get(kind) ?? [];
            if (seen.length < 5) seen.push(JSON.stringify(candidate[String(issue.path[0]) as keyof typeof candidate]));
            looser.set(kind, seen);
          }
        }
      }),
      RUNS,
    );
    // The restricted schema has `format: email` and `format: date-time`; Zod checks stricter spellings of
    // both (its own e-mail pattern; UTC `Z` only, no lower case, no leap second). The definition runs Zod.
    // Where the converted schema is looser than Zod, and the definition (which runs Zod) is not:
    // - email: Zod's own e-mail pattern is stricter than `format: email` (e.g. "é@x.com", "a..b@x.com");
    // - date-time: z.iso.datetime() takes UTC `Z` only, upper case (offsets and "z" pass `format: date-time`);
    // - integer: z.int()'s safe-integer range is not sent (1e21 is a whole number).
    expect(looser.has('email') && looser.has('date-time')).toBe(true);
    expect([...looser.keys()].filter((kind) => !['email', 'date-time', 'integer'].includes(kind))).toEqual([]);
  });

  it('pins the two answers Zod accepts and the definition refuses (found outside the generators; the validator is stricter)', () => {
    // Year 0000 is a leap year for Zod; the date check reads years 0-99 as 1900-1999 (Date.UTC), so it refuses it.
    const dated = defineForm(z.object({ day: z.iso.date() }));
    expect(z.object({ day: z.iso.date() }).safeParse({ day: '0000-02-29' }).success).toBe(true);
    expect(dated.validate({ day: '0000-02-29' })).toEqual({
      ok: false,
      issues: [{ field: 'day', message: 'must be a date (YYYY-MM-DD)' }],
    });
    // z.url() trims before parsing; `format: uri` does not.
    const linked = defineForm(z.object({ site: z.url() }));
    expect(z.object({ site: z.url() }).safeParse({ site: ' https://x.com' }).success).toBe(true);
    expect(linked.validate({ site: ' https://x.com' })).toEqual({ ok: false, issues: [{ field: 'site', message: 'must be a URL' }] });
  });
});
