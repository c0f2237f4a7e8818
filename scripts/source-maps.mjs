// Source map (v3) helpers for the build: the CommonJS build is transpiled from tsc's ES module output, so its
// maps are chained through the ES module maps to land in src/, and declarations copied to dist/cjs get their
// maps with the source paths made relative to the new place. No dependency: a map is JSON and base64 VLQs.
import { dirname, relative, resolve, sep } from 'node:path';

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUE = new Map([...BASE64].map((char, value) => [char, value]));

/**
 * `outer` (generated file to intermediate file, one source) followed through `inner` (intermediate file to its
 * sources): a map of the generated file to `inner`'s sources, which are resolved from `innerMapFile` and written
 * relative to `outerMapFile`. A generated position maps where its intermediate position maps (the nearest
 * segment at or before it on its line); positions `inner` does not map stay unmapped.
 */
export function chainSourceMaps(outer, outerMapFile, inner, innerMapFile) {
  const innerLines = decodeMappings(inner.mappings);
  const lines = decodeMappings(outer.mappings).map((segments) =>
    segments.flatMap(([column, , line, originalColumn]) => {
      if (line === undefined) return [];
      const target = nearestAtOrBefore(innerLines[line] ?? [], originalColumn);
      return target && target.length >= 4 ? [[column, ...target.slice(1)]] : [];
    }),
  );
  return {
    version: 3,
    file: outer.file,
    sources: relocateSources(inner, innerMapFile, outerMapFile),
    names: inner.names ?? [],
    mappings: encodeMappings(lines),
  };
}

/** The map of a copy of the file `map` describes, read from `toMapFile` instead of `fromMapFile`. */
export function relocateSourceMap(map, fromMapFile, toMapFile) {
  const { sourceRoot: _sourceRoot, ...rest } = map;
  return { ...rest, sources: relocateSources(map, fromMapFile, toMapFile) };
}

function relocateSources(map, fromMapFile, toMapFile) {
  const base = resolve(dirname(fromMapFile), map.sourceRoot ?? '');
  return map.sources.map((source) => relative(dirname(toMapFile), resolve(base, source)).split(sep).join('/'));
}

function nearestAtOrBefore(segments, column) {
  let found;
  for (const segment of segments) {
    if (segment[0] > column) break;
    found = segment;
  }
  return found;
}

/** `mappings` as lines of segments with absolute values: [column, source, line, column, name?]. */
function decodeMappings(mappings) {
  const state = [0, 0, 0, 0, 0];
  return mappings.split(';').map((text) => {
    state[0] = 0;
    if (!text) return [];
    return text.split(',').map((segment) => decodeVlqs(segment).map((delta, i) => (state[i] += delta)));
  });
}

function encodeMappings(lines) {
  const previous = [0, 0, 0, 0, 0];
  return lines
    .map((segments) => {
      previous[0] = 0;
      return segments
        .map((segment) =>
          segment
            .map((value, i) => {
              const delta = value - previous[i];
              previous[i] = value;
              return encodeVlq(delta);
            })
            .join(''),
        )
        .join(',');
    })
    .join(';');
}

function decodeVlqs(text) {
  const values = [];
  let value = 0;
  let shift = 0;
  for (const char of text) {
    const digit = BASE64_VALUE.get(char);
    if (digit === undefined) throw new Error(`source map: "${char}" is not a base64 VLQ digit (in "${text}")`);
    value += (digit & 31) * 2 ** shift;
    if (digit & 32) {
      shift += 5;
    } else {
      values.push(value % 2 ? -(value - 1) / 2 : value / 2);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

function encodeVlq(value) {
  let rest = value < 0 ? -value * 2 + 1 : value * 2;
  let text = '';
  do {
    const digit = rest % 32;
    rest = Math.floor(rest / 32);
    text += BASE64[rest > 0 ? digit | 32 : digit];
  } while (rest > 0);
  return text;
}
