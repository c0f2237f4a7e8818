/**
 * The "API reference" (docs/api-reference.md) lists every name each entry point exports, no more and no less: a name
 * exported but undocumented, or documented but gone, fails here. Names are read from the TypeScript
 * program (types included), the tables from their first column.
 */
import { describe, expect, it } from '@jest/globals';
import { ENTRY_POINTS, exportedNames, namesIn, readDocs, readmeSection, tableRows } from './readme-support.js';

/** The names in the first column of the tables under `### \`<entry point>\`` in the API reference. */
function documentedNames(readme: string, entryPoint: string): string[] {
  const section = readmeSection(readmeSection(readme, '## API reference'), `### \`${entryPoint}\``);
  return [...new Set(tableRows(section, 'export').flatMap((cells) => namesIn(cells[0])))].sort();
}

describe('API reference (docs/api-reference.md)', () => {
  const readme = readDocs();

  it.each(Object.entries(ENTRY_POINTS))('lists exactly what %s exports', (entryPoint, file) => {
    expect(documentedNames(readme, entryPoint)).toEqual(exportedNames(file));
  });
});
