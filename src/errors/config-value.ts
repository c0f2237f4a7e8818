/** Longest string an option error quotes, in characters; a longer one is cut, with its length said. */
const MAX_QUOTED = 80;
/** Keys of an object an option error names, at most. */
const MAX_KEYS = 6;

/** The value an option error says it got, and how to say it. */
export interface ConfigValue {
  /** The value as given. */
  value: unknown;
  /** A secret (a key, a client secret): only its kind and size are said, never the value. */
  secret?: boolean;
  /** What the value was probably meant to be, said after it, e.g. `did you mean "http://localhost:3000"?`. */
  hint?: string;
}

/**
 * A value as an option error shows it: strings quoted (escaped, cut when long), numbers and booleans as they are,
 * functions as "a function", objects by their keys (never their values), Buffers by their size; a secret by its
 * kind and size only, marked as redacted.
 */
export function describeConfigValue(value: unknown, secret = false): string {
  if (value === undefined || value === null) return String(value);
  if (secret) return `${kindOf(value)} (redacted)`;
  switch (typeof value) {
    case 'string':
      return quoted(value);
    case 'number':
    case 'boolean':
      return String(value);
    case 'bigint':
      return `${value}n`;
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
  }
  if (Buffer.isBuffer(value)) return kindOf(value);
  if (Array.isArray(value)) {
    const primitives = value.every((item) => item === null || ['string', 'number', 'boolean'].includes(typeof item));
    const json = primitives ? JSON.stringify(value) : undefined;
    return json !== undefined && json.length <= MAX_QUOTED ? json : `an array of ${value.length} item${value.length === 1 ? '' : 's'}`;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  const className = proto && proto !== Object.prototype ? (proto as { constructor?: { name?: string } }).constructor?.name : undefined;
  if (className) return `${article(className)} ${className}`;
  const keys = Object.keys(value);
  if (keys.length === 0) return 'an empty object {}';
  const shown = keys.slice(0, MAX_KEYS).map((key) => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : quoted(key)));
  return `an object { ${shown.join(', ')}${keys.length > MAX_KEYS ? ', …' : ''} }`;
}

function kindOf(value: unknown): string {
  if (typeof value === 'string') return `a string of ${value.length} character${value.length === 1 ? '' : 's'}`;
  if (Buffer.isBuffer(value)) return `a Buffer of ${value.length} byte${value.length === 1 ? '' : 's'}`;
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? '' : 's'}`;
  return typeof value === 'object' ? 'an object' : `${article(typeof value)} ${typeof value}`;
}

/** A string in double quotes, escaped as JSON (so control characters cannot break a log line), cut when long. */
function quoted(text: string): string {
  if (text.length <= MAX_QUOTED) return JSON.stringify(text);
  return `${JSON.stringify(`${text.slice(0, MAX_QUOTED - 1)}…`)} (${text.length} characters)`;
}

/** "an" before a vowel sound: a lower-case vowel or a capital A, E, I, O (`a URL`, `a Uint8Array`, `an Error`). */
function article(word: string): string {
  return /^[aeiouAEIO]/.test(word) ? 'an' : 'a';
}
