/** The W3C `traceparent` the cross-instance event carries: written from a span context and read back as a remote one. */
import { describe, expect, it } from '@jest/globals';
import { formatTraceparent, parseTraceparent } from '../../src/observability/otel-api.js';

describe('traceparent (the trace context in the cross-instance event)', () => {
  const context = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 };

  it('formats a span context and reads it back as a remote one', () => {
    const value = formatTraceparent(context);
    expect(value).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(parseTraceparent(value)).toEqual({ ...context, isRemote: true });
  });

  it.each([
    [undefined],
    [42],
    ['00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01'],
    ['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra'],
  ])('reads %p as no trace context', (value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });
});
