/** A time left, as a page says it: its amount in the largest unit that fits (hours, minutes, seconds). */
export interface TimeLeft {
  readonly amount: number;
  readonly unit: 'hour' | 'minute' | 'second';
}

/** `ms` left (none below 0) in hours from an hour on, in minutes from a minute on, else in seconds, as templates/page.js counts. */
export function timeLeft(ms: number): TimeLeft {
  const left = Math.max(ms, 0);
  if (left >= 3_600_000) return { amount: Math.round(left / 3_600_000), unit: 'hour' };
  if (left >= 60_000) return { amount: Math.ceil(left / 60_000), unit: 'minute' };
  return { amount: Math.ceil(left / 1000), unit: 'second' };
}

/**
 * How the pages write times, in a page's locale: a moment as date and time in UTC (the time zone the hosted form
 * documents: the same whatever the browser's), a time left as `Intl.RelativeTimeFormat` says it ("in 9 minutes").
 * The `Intl` formats are made once per locale.
 */
export class PageTimes {
  private readonly formats = new Map<string, { relative: Intl.RelativeTimeFormat; absolute: Intl.DateTimeFormat }>();

  /** `at` (epoch milliseconds) as date and time in UTC, e.g. "Nov 24, 2026, 07:45 UTC". */
  absolute(at: number, locale: string): string {
    return this.formatsOf(locale).absolute.format(at);
  }

  /** A time left (`timeLeft`) as the locale says it, e.g. "in 9 minutes". */
  relative({ amount, unit }: TimeLeft, locale: string): string {
    return this.formatsOf(locale).relative.format(amount, unit);
  }

  private formatsOf(locale: string): { relative: Intl.RelativeTimeFormat; absolute: Intl.DateTimeFormat } {
    let formats = this.formats.get(locale);
    if (!formats) {
      formats = {
        relative: new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }),
        absolute: new Intl.DateTimeFormat(locale, {
          year: 'numeric',
          month: 'short',
          day: 'numeric',
          hour: '2-digit',
          minute: '2-digit',
          timeZone: 'UTC',
          timeZoneName: 'short',
        }),
      };
      this.formats.set(locale, formats);
    }
    return formats;
  }
}
