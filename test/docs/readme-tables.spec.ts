/**
 * The reference tables of the docs (docs/options.md, docs/getting-started.md, docs/api-reference.md, docs/oauth.md, docs/stores.md) say what the code has, no more and no less: the options and extras tables
 * (names, required or not, primitive types, literal defaults) against `ElicitationModuleOptions`,
 * `ElicitationLimits` and `ElicitationModuleExtras`; the Service API table against the public methods of
 * `ElicitationService` (names, type parameters, parameters), and the OAuth section's against `ElicitationOAuth`'s; the Errors table against every exported class that
 * extends `Error` (and the properties each one declares); the store contract table against `ElicitationStore`
 * (names, optional members, parameters). "Public" is what the published types hold: `@internal` is left out,
 * as `stripInternal` leaves it out of `dist`. Each check also runs on docs with a row taken away or made
 * up, to show that it can fail.
 */
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import {
  codeSpans,
  ENTRY_POINTS,
  entryPointProgram,
  exportsOf,
  isInternal,
  readDocs,
  readmeSection,
  rootExport,
  tableRows,
} from './readme-support.js';

/** Option rows documented one level down (`limits.createPerMinute`), and the interface of their fields. */
const NESTED_OPTIONS: Record<string, string> = { limits: 'ElicitationLimits', tasks: 'ElicitationTaskOptions' };

// ---------------------------------------------------------------------------------------------------------
// Reading the code

/** The declared (instance) type of an exported class or interface. */
function declaredType(symbol: ts.Symbol): ts.Type {
  return entryPointProgram().checker.getDeclaredTypeOfSymbol(symbol);
}

/** The properties of an interface the main entry (or the `/store` entry, for the store contract) exports, without `@internal` ones. */
function interfaceProperties(name: string, symbol: ts.Symbol = rootExport(name)): ts.Symbol[] {
  return declaredType(symbol)
    .getProperties()
    .filter((p) => !p.declarations?.some(isInternal));
}

function isOptional(symbol: ts.Symbol): boolean {
  return (symbol.flags & ts.SymbolFlags.Optional) !== 0;
}

/** The text of a property's `@default` JSDoc tag, if it has one. */
function jsDocDefault(symbol: ts.Symbol): string | undefined {
  const tag = symbol.getJsDocTags(entryPointProgram().checker).find((t) => t.name === 'default');
  return tag && ts.displayPartsToString(tag.text).trim();
}

/** `string`, `number` or `boolean` when that is a property's whole type (`undefined` aside), else `undefined`. */
function primitiveType(symbol: ts.Symbol): string | undefined {
  const { checker } = entryPointProgram();
  const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
  if (!declaration) return undefined;
  const type = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(symbol, declaration));
  const text = checker.typeToString(type);
  return ['string', 'number', 'boolean'].includes(text) ? text : undefined;
}

/** The members of a class declaration that the published types show (not private, protected or `@internal`). */
function publicMembers(symbol: ts.Symbol): ts.ClassElement[] {
  const declaration = symbol.declarations?.find(ts.isClassDeclaration);
  if (!declaration) throw new Error(`${symbol.getName()} is not a class`);
  return declaration.members.filter((member) => {
    if (ts.isConstructorDeclaration(member) || !member.name || ts.isPrivateIdentifier(member.name)) return false;
    const flags = ts.getCombinedModifierFlags(member);
    return !(flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected | ts.ModifierFlags.Static)) && !isInternal(member);
  });
}

function memberName(member: ts.ClassElement | ts.ParameterDeclaration): string {
  const name: ts.Node | undefined = member.name;
  if (!name || ts.isObjectBindingPattern(name) || ts.isArrayBindingPattern(name)) return '';
  return ts.isIdentifier(name) ? name.text : name.getText();
}

/** The classes a class extends, nearest first. */
function baseChain(type: ts.Type): ts.Type[] {
  const { checker } = entryPointProgram();
  const chain: ts.Type[] = [];
  let bases = type.isClassOrInterface() ? checker.getBaseTypes(type) : [];
  while (bases.length > 0) {
    chain.push(bases[0]);
    bases = bases[0].isClassOrInterface() ? checker.getBaseTypes(bases[0]) : [];
  }
  return chain;
}

/** True for the global `Error` of TypeScript's own lib files. */
function isGlobalError(type: ts.Type): boolean {
  const { program } = entryPointProgram();
  return (
    type.symbol?.getName() === 'Error' && !!type.symbol.declarations?.some((d) => program.isSourceFileDefaultLibrary(d.getSourceFile()))
  );
}

/** Every exported class of every entry point that extends `Error`, by name. */
function exportedErrorClasses(): Map<string, ts.Symbol> {
  const errors = new Map<string, ts.Symbol>();
  for (const file of Object.values(ENTRY_POINTS)) {
    for (const [name, symbol] of exportsOf(file)) {
      if (symbol.flags & ts.SymbolFlags.Class && baseChain(declaredType(symbol)).some(isGlobalError)) errors.set(name, symbol);
    }
  }
  return errors;
}

/** The instance properties an error class declares itself (fields, getters, parameter properties), `name` aside. */
function ownErrorProperties(symbol: ts.Symbol): string[] {
  const names = publicMembers(symbol)
    .filter((m) => ts.isPropertyDeclaration(m) || ts.isGetAccessorDeclaration(m))
    .map(memberName);
  const constructor = symbol.declarations?.find(ts.isClassDeclaration)?.members.find(ts.isConstructorDeclaration);
  for (const parameter of constructor?.parameters ?? []) {
    const flags = ts.getCombinedModifierFlags(parameter);
    if (ts.isParameterPropertyDeclaration(parameter, constructor!) && !(flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected))) {
      names.push(memberName(parameter));
    }
  }
  return names.filter((name) => name !== 'name').sort();
}

// ---------------------------------------------------------------------------------------------------------
// Reading the docs

/** A method as a table writes it: `name?<T>(id, { consume? })`. */
interface DocSignature {
  name: string;
  optional: boolean;
  typeParameters: number;
  parameters: DocParameter[];
}

type DocParameter =
  | { kind: 'name'; name: string; optional: boolean }
  | { kind: 'object'; keys: Array<{ name: string; optional: boolean }> }
  | { kind: 'other'; text: string };

/** Splits at the commas outside brackets. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if ('({[<'.includes(char)) depth++;
    if (')}]>'.includes(char)) depth--;
    if (char === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += char;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}

function parseSignature(span: string): DocSignature | undefined {
  const match = /^([A-Za-z_$][\w$]*)(\?)?(?:<(.+?)>)?\((.*)\)$/s.exec(span.trim());
  if (!match) return undefined;
  const parameters = splitTopLevel(match[4]).map((text): DocParameter => {
    const name = /^([A-Za-z_$][\w$]*)(\?)?$/.exec(text);
    if (name) return { kind: 'name', name: name[1], optional: !!name[2] };
    const object = /^\{(.*)\}$/s.exec(text);
    if (!object) return { kind: 'other', text };
    return {
      kind: 'object',
      keys: splitTopLevel(object[1]).map((key) => ({ name: key.replace(/\?$/, ''), optional: key.endsWith('?') })),
    };
  });
  return { name: match[1], optional: !!match[2], typeParameters: match[3] ? splitTopLevel(match[3]).length : 0, parameters };
}

/** The signatures written in the first column of a table. */
function documentedSignatures(rows: string[][]): DocSignature[] {
  return rows.flatMap((cells) => codeSpans(cells[0]).flatMap((span) => parseSignature(span) ?? []));
}

/** The properties of a parameter's type, by name (every member of a union), `@internal` ones left out. */
function parameterKeys(parameter: ts.ParameterDeclaration): Map<string, boolean> {
  const { checker } = entryPointProgram();
  const type = checker.getNonNullableType(checker.getTypeAtLocation(parameter));
  const keys = new Map<string, boolean>();
  for (const member of type.isUnion() ? type.types : [type]) {
    for (const property of member.getProperties()) {
      if (!property.declarations?.some(isInternal)) keys.set(property.getName(), isOptional(property));
    }
  }
  return keys;
}

/** How a documented signature differs from the declaration (type parameters, parameters, their names and keys). */
function signatureProblems(where: string, doc: DocSignature, declaration: ts.SignatureDeclaration): string[] {
  const problems: string[] = [];
  const typeParameters = declaration.typeParameters?.length ?? 0;
  if (doc.typeParameters !== typeParameters) {
    problems.push(`${where}: ${typeParameters} type parameter(s) in the code, ${doc.typeParameters} in the docs`);
  }
  if (doc.parameters.length !== declaration.parameters.length) {
    const names = declaration.parameters.map((p) => p.getText().split(/[:=]/)[0].trim()).join(', ');
    problems.push(`${where}: the code takes (${names}), the docs show ${doc.parameters.length} parameter(s)`);
    return problems;
  }
  declaration.parameters.forEach((parameter, i) => {
    const documented = doc.parameters[i];
    const optional = !!parameter.questionToken || !!parameter.initializer;
    if (documented.kind === 'name' && ts.isIdentifier(parameter.name)) {
      if (documented.name !== parameter.name.text)
        problems.push(`${where}: parameter ${i + 1} is "${parameter.name.text}", not "${documented.name}"`);
      if (documented.optional !== optional)
        problems.push(`${where}: parameter "${parameter.name.text}" is ${optional ? '' : 'not '}optional`);
    } else if (documented.kind === 'object') {
      const keys = parameterKeys(parameter);
      const shown = new Map(documented.keys.map((k) => [k.name, k.optional]));
      for (const [key, keyOptional] of keys) {
        if (!shown.has(key)) problems.push(`${where}: parameter ${i + 1} has "${key}", missing from the docs`);
        else if (shown.get(key) !== keyOptional) problems.push(`${where}: "${key}" is ${keyOptional ? '' : 'not '}optional`);
      }
      for (const key of shown.keys()) if (!keys.has(key)) problems.push(`${where}: parameter ${i + 1} has no "${key}"`);
    } else if (documented.kind === 'other') {
      problems.push(`${where}: parameter ${i + 1} is written "${documented.text}" (a name or { keys } expected)`);
    }
  });
  return problems;
}

/** Names missing on either side. */
function differences(what: string, inCode: Iterable<string>, inReadme: Iterable<string>): string[] {
  const code = new Set(inCode);
  const readme = new Set(inReadme);
  return [
    ...[...code].filter((n) => !readme.has(n)).map((n) => `${what}: "${n}" is in the code but not in the docs`),
    ...[...readme].filter((n) => !code.has(n)).map((n) => `${what}: "${n}" is in the docs but not in the code`),
  ];
}

/** The literal a `@default` tag starts with (`600000`, `'elicit'`, `false`, `{ limit: 300, ttlMs: 60000 }`), if any. */
function defaultLiteral(text: string): string | undefined {
  return /^(-?\d[\d_]*|'[^']*'|true|false|\{.*\}|\[.*\])/.exec(text)?.[1].replace(/(?<=\d)_(?=\d)/g, '');
}

/** An option row against its property: required or not, a primitive type, a literal `@default`. */
function optionRowProblems(table: string, name: string, cells: { type: string; default: string }, property: ts.Symbol): string[] {
  const problems: string[] = [];
  const documentedRequired = cells.default === 'required';
  if (documentedRequired === isOptional(property)) {
    problems.push(
      `${table} "${name}": ${isOptional(property) ? 'optional' : 'required'} in the code, the default column says "${cells.default}"`,
    );
  }
  const primitive = primitiveType(property);
  const documentedType = codeSpans(cells.type).join(' ');
  if (primitive && documentedType !== primitive)
    problems.push(`${table} "${name}": type ${primitive} in the code, ${cells.type} in the docs`);
  const literal = defaultLiteral(jsDocDefault(property) ?? '');
  if (literal !== undefined) {
    const shown = codeSpans(cells.default)[0]?.replace(/(?<=\d)_(?=\d)/g, '');
    if (shown !== literal) problems.push(`${table} "${name}": @default ${literal} in the code, ${cells.default} in the docs`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------------------
// The checks

/** The options table against `ElicitationModuleOptions` (and `limits.*` against `ElicitationLimits`). */
function optionsTableProblems(readme: string): string[] {
  const rows = tableRows(readmeSection(readme, '## Options'), 'name').map((cells) => ({
    name: codeSpans(cells[0])[0] ?? cells[0],
    type: cells[1] ?? '',
    default: cells[2] ?? '',
  }));
  const properties = new Map<string, ts.Symbol>();
  for (const property of interfaceProperties('ElicitationModuleOptions')) {
    const nested = NESTED_OPTIONS[property.getName()];
    if (!nested) properties.set(property.getName(), property);
    else for (const field of interfaceProperties(nested)) properties.set(`${property.getName()}.${field.getName()}`, field);
  }
  const problems = differences(
    'Options table',
    properties.keys(),
    rows.map((r) => r.name),
  );
  for (const row of rows) {
    const property = properties.get(row.name);
    if (property) problems.push(...optionRowProblems('Options table', row.name, row, property));
  }
  return problems;
}

/** The extras table ("Async configuration") against `ElicitationModuleExtras`. */
function extrasTableProblems(readme: string): string[] {
  const rows = tableRows(readmeSection(readme, '## Async configuration'), 'extra').map((cells) => ({
    name: codeSpans(cells[0])[0] ?? cells[0],
    type: cells[1] ?? '',
    default: cells[2] ?? '',
  }));
  const properties = new Map(interfaceProperties('ElicitationModuleExtras').map((p) => [p.getName(), p]));
  const problems = differences(
    'Extras table',
    properties.keys(),
    rows.map((r) => r.name),
  );
  for (const row of rows) {
    const property = properties.get(row.name);
    if (property) problems.push(...optionRowProblems('Extras table', row.name, row, property));
  }
  return problems;
}

/** The `method` table under `heading` against the public methods of the root export `className`. */
function methodTableProblems(readme: string, heading: string, className: string, table: string): string[] {
  const documented = documentedSignatures(tableRows(readmeSection(readme, heading), 'method'));
  const methods = new Map(
    publicMembers(rootExport(className))
      .filter(ts.isMethodDeclaration)
      .map((m) => [memberName(m), m]),
  );
  const problems = differences(
    table,
    methods.keys(),
    documented.map((d) => d.name),
  );
  for (const doc of documented) {
    const method = methods.get(doc.name);
    if (method) problems.push(...signatureProblems(`${table} "${doc.name}"`, doc, method));
  }
  return problems;
}

/** The Service API table against the public methods of `ElicitationService`. */
function serviceTableProblems(readme: string): string[] {
  return methodTableProblems(readme, '## Service API', 'ElicitationService', 'Service API table');
}

/** The OAuth section's table against the public methods of `ElicitationOAuth`. */
function oauthTableProblems(readme: string): string[] {
  return methodTableProblems(readme, '## Connecting accounts (OAuth)', 'ElicitationOAuth', 'ElicitationOAuth table');
}

/** The Errors table against every exported `Error` class, and the properties each one declares. */
function errorsTableProblems(readme: string): string[] {
  const rows = tableRows(readmeSection(readme, '## Errors'), 'error');
  const classes = exportedErrorClasses();
  const documented = new Map(rows.map((cells) => [codeSpans(cells[0])[0] ?? cells[0], cells]));
  const problems = differences('Errors table', classes.keys(), documented.keys());
  const { checker } = entryPointProgram();
  for (const [name, cells] of documented) {
    const symbol = classes.get(name);
    if (!symbol) continue;
    const isHttp = baseChain(declaredType(symbol)).some((t) => t.symbol?.getName() === 'HttpException');
    if (isHttp !== /^\d{3}\b/.test(cells[1] ?? '')) {
      problems.push(
        `Errors table "${name}": ${isHttp ? 'an HttpException, its kind must be its status' : 'not an HttpException, its kind is not a status'}`,
      );
    }
    const shown = codeSpans(cells.join(' | '))
      .filter((span) => /^\.[A-Za-z_$][\w$]*$/.test(span))
      .map((span) => span.slice(1));
    for (const property of ownErrorProperties(symbol)) {
      if (!shown.includes(property)) problems.push(`Errors table "${name}": its property .${property} is not mentioned`);
    }
    for (const property of shown) {
      if (!checker.getPropertyOfType(declaredType(symbol), property)) problems.push(`Errors table "${name}": it has no .${property}`);
    }
  }
  return problems;
}

/** The store contract table ("Stores") against the members of `ElicitationStore`. */
function storeTableProblems(readme: string): string[] {
  const documented = documentedSignatures(tableRows(readmeSection(readme, '## Stores'), 'method'));
  const members = new Map(
    publicMembers(rootExport('ElicitationStore'))
      .filter(ts.isMethodDeclaration)
      .map((m) => [memberName(m), m]),
  );
  const problems = differences(
    'Store contract table',
    members.keys(),
    documented.map((d) => d.name),
  );
  for (const doc of documented) {
    const member = members.get(doc.name);
    if (!member) continue;
    const optional = !!member.questionToken;
    if (doc.optional !== optional) problems.push(`Store contract table "${doc.name}": ${optional ? 'optional' : 'required'} in the code`);
    problems.push(...signatureProblems(`Store contract table "${doc.name}"`, doc, member));
  }
  return problems;
}

/** The two halves of the contract against the whole: the same members, optional in the same places. */
/** One export of the `/store` entry point (the store contract's halves live there only). */
function storeExport(name: string): ts.Symbol {
  const symbol = exportsOf(ENTRY_POINTS['nestjs-mcp-elicitation/store']).get(name);
  if (!symbol) throw new Error(`nestjs-mcp-elicitation/store does not export ${name}`);
  return symbol;
}

function storeContractProblems(): string[] {
  const whole = new Map(
    publicMembers(rootExport('ElicitationStore'))
      .filter(ts.isMethodDeclaration)
      .map((m) => [memberName(m), !!m.questionToken]),
  );
  const halves = new Map<string, boolean>();
  for (const name of ['ElicitationRecordStore', 'ElicitationCounterStore']) {
    for (const property of interfaceProperties(name, storeExport(name))) halves.set(property.getName(), isOptional(property));
  }
  // `useKeys` serves both halves and is declared on the whole only.
  halves.set('useKeys', true);
  const problems = differences('ElicitationStore vs its two contracts', whole.keys(), halves.keys());
  for (const [name, optional] of halves) {
    if (whole.has(name) && whole.get(name) !== optional) problems.push(`${name}: optional in one contract, required in the other`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------------------

/** The docs without the first table row whose first cell starts with `cellStart`. */
function dropRow(readme: string, cellStart: string): string {
  const lines = readme.split('\n');
  const index = lines.findIndex((line) => line.trim().startsWith(`| ${cellStart}`));
  if (index < 0) throw new Error(`No row starting with "${cellStart}"`);
  lines.splice(index, 1);
  return lines.join('\n');
}

/** The docs with `row` added after the first table row whose first cell starts with `cellStart`. */
function addRow(readme: string, cellStart: string, row: string): string {
  const lines = readme.split('\n');
  const index = lines.findIndex((line) => line.trim().startsWith(`| ${cellStart}`));
  if (index < 0) throw new Error(`No row starting with "${cellStart}"`);
  lines.splice(index + 1, 0, lines[index].replace(/\|.*$/, row));
  return lines.join('\n');
}

/** The docs with one text replaced, which must be there. */
function replaced(readme: string, text: string, by: string): string {
  if (!readme.includes(text)) throw new Error(`the docs have no "${text}"`);
  return readme.replace(text, by);
}

describe('Reference tables of the docs (README.md, docs/)', () => {
  const readme = readDocs();

  it('the options table lists every option of ElicitationModuleOptions (limits.* of ElicitationLimits), as declared', () => {
    expect(optionsTableProblems(readme)).toEqual([]);
  });

  it('the extras table lists every ElicitationModuleExtras, as declared', () => {
    expect(extrasTableProblems(readme)).toEqual([]);
  });

  it('the Service API table lists every public method of ElicitationService with its parameters', () => {
    expect(serviceTableProblems(readme)).toEqual([]);
  });

  it("the OAuth section's table lists every public method of ElicitationOAuth with its parameters", () => {
    expect(oauthTableProblems(readme)).toEqual([]);
  });

  it('the Errors table lists every exported Error class and the properties each declares', () => {
    expect(errorsTableProblems(readme)).toEqual([]);
  });

  it('the store contract table lists every member of ElicitationStore, optional ones marked optional', () => {
    expect(storeTableProblems(readme)).toEqual([]);
    expect(storeContractProblems()).toEqual([]);
  });

  describe('each check fails on docs that say otherwise', () => {
    it.each<[string, (readme: string) => string[], (readme: string) => string, string]>([
      ['an option row missing', optionsTableProblems, (r) => dropRow(r, '`keepAliveMs`'), '"keepAliveMs" is in the code'],
      [
        'a limits row missing',
        optionsTableProblems,
        (r) => dropRow(r, '`limits.maxFormAttempts`'),
        '"limits.maxFormAttempts" is in the code',
      ],
      [
        'an invented option',
        optionsTableProblems,
        (r) => addRow(r, '`keepAliveMs`', '| `keepAwake` | `number` | `0` | no |'),
        '"keepAwake" is in the docs',
      ],
      [
        'a wrong default',
        optionsTableProblems,
        (r) => replaced(r, '| `keepAliveMs` | `number` | `15000`', '| `keepAliveMs` | `number` | `1500`'),
        '@default 15000',
      ],
      ['a wrong type', optionsTableProblems, (r) => replaced(r, '| `ttlMs` | `number`', '| `ttlMs` | `string`'), 'type number'],
      ['an extra row missing', extrasTableProblems, (r) => dropRow(r, '`routePrefix`'), '"routePrefix" is in the code'],
      ['a service method missing', serviceTableProblems, (r) => dropRow(r, '`sweep(now?)`'), '"sweep" is in the code'],
      [
        'a service parameter invented',
        serviceTableProblems,
        (r) => replaced(r, '| `getStatus(id)` |', '| `getStatus(id, now)` |'),
        'the code takes (id)',
      ],
      [
        'an ElicitationOAuth method missing',
        oauthTableProblems,
        (r) => dropRow(r, '`revoke(userId, provider)`'),
        '"revoke" is in the code',
      ],
      ['a service option key missing', serviceTableProblems, (r) => replaced(r, '{ timeoutMs?, signal? }', '{ timeoutMs? }'), '"signal"'],
      ['an error class missing', errorsTableProblems, (r) => dropRow(r, '`FormSchemaError`'), '"FormSchemaError" is in the code'],
      [
        'an error property missing',
        errorsTableProblems,
        (r) => replaced(r, '`.retryAfterSeconds`', 'the seconds'),
        '.retryAfterSeconds is not mentioned',
      ],
      [
        'an error property invented',
        errorsTableProblems,
        (r) => replaced(r, '`.retryAfterSeconds`', '`.retryAfter`'),
        'it has no .retryAfter',
      ],
      ['a store member missing', storeTableProblems, (r) => dropRow(r, '`peekHits?('), '"peekHits" is in the code'],
      [
        'an optional store member shown required',
        storeTableProblems,
        (r) => replaced(r, '| `ping?()` |', '| `ping()` |'),
        '"ping": optional in the code',
      ],
      [
        'a store parameter shown optional',
        storeTableProblems,
        (r) => replaced(r, '| `create(record, quota?)` |', '| `create(record?, quota?)` |'),
        'parameter "record" is not optional',
      ],
    ])('%s', (_, check, mutate, expected) => {
      const changed = mutate(readme);
      expect(changed).not.toBe(readme);
      expect(check(changed).join('\n')).toContain(expected);
    });
  });
});
