/**
 * Accessibility checks for the module's pages in Chromium: axe-core (WCAG 2.2 A/AA rules) injected with
 * `page.evaluate` (not subject to the page's CSP), and the layout checks of a phone-sized window: no sideways
 * scrolling, 44 px targets, 16 px input text, and a visible focus indicator on the focused element.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);

/** axe-core's browser build, read once. */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The rule tags run: WCAG 2.0, 2.1 and 2.2, levels A and AA. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** One axe violation, reduced to what a report needs. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** Runs axe over the whole document (injecting it first when the page has none) and returns its violations. */
export async function runAxe(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (tags) => {
    type Result = {
      violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }>;
    };
    const axe = (window as unknown as { axe: { run(context: Document, options: unknown): Promise<Result> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.map(String).join(' ')),
    }));
  }, WCAG_TAGS);
}

/** One line per violation: `id (impact): help → targets`, for a failure message that says what to fix. */
export const describeViolations = (violations: AxeViolation[]): string[] =>
  violations.map((v) => `${v.id} (${v.impact ?? 'n/a'}): ${v.help} → ${v.targets.join(' | ')}`);

/**
 * What a phone-sized window gets wrong on this page, one line each (empty when nothing): the page scrolls
 * sideways, a button/input/select/textarea/link is under `minTarget` px high (a checkbox or radio: its label
 * row, `.choice`), or an input's text is under 16 px (phones zoom into those).
 */
export function layoutProblems(page: Page, width: number, minTarget = 44): Promise<string[]> {
  return page.evaluate(
    ({ width, minTarget }) => {
      const problems: string[] = [];
      const scroll = document.documentElement.scrollWidth;
      if (scroll > width) problems.push(`the page scrolls sideways: scrollWidth ${scroll} > ${width}`);
      const describe = (el: Element) =>
        `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.getAttribute('name') ? `[name=${el.getAttribute('name')}]` : ''}` +
        `${el.getAttribute('value') && el.tagName === 'BUTTON' ? `[value=${el.getAttribute('value')}]` : ''}` +
        `${el.tagName === 'A' ? `[href=${el.getAttribute('href')}]` : ''}`;
      for (const el of Array.from(document.querySelectorAll('button, input:not([type=hidden]), select, textarea, a[href]'))) {
        const rect = el.getBoundingClientRect();
        if (rect.width === 0 && rect.height === 0) continue;
        const type = el.getAttribute('type');
        const box = type === 'checkbox' || type === 'radio' ? (el.closest('.choice') ?? el).getBoundingClientRect() : rect;
        if (box.height < minTarget) problems.push(`${describe(el)} is ${box.height.toFixed(1)} px high (< ${minTarget})`);
        if (rect.right > width + 0.5) problems.push(`${describe(el)} reaches ${rect.right.toFixed(1)} px (> ${width})`);
        if (el.tagName !== 'BUTTON' && el.tagName !== 'A' && type !== 'checkbox' && type !== 'radio') {
          const size = parseFloat(getComputedStyle(el).fontSize);
          if (size < 16) problems.push(`${describe(el)} has font-size ${size}px (< 16px)`);
        }
      }
      return problems;
    },
    { width, minTarget },
  );
}

/** The focused element and whether it shows a focus indicator (an outline that is drawn, or a box-shadow). */
export interface FocusState {
  /** e.g. `input#apiKey`, `button.primary[value=submit]`, `body`. */
  element: string;
  id: string;
  visible: boolean;
  outline: string;
  boxShadow: string;
}

export function focusState(page: Page): Promise<FocusState> {
  return page.evaluate(() => {
    const el = document.activeElement ?? document.body;
    const style = getComputedStyle(el);
    const outlined = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
    const shadowed = style.boxShadow !== 'none' && style.boxShadow !== '';
    // A date input's calendar button (in the browser's own shadow tree) has focus: the input is the active element
    // without matching :focus, and Chromium draws its own ring on that button, which no page style reaches.
    const type = el.getAttribute('type');
    const pickerButton = el.tagName === 'INPUT' && (type === 'date' || type === 'datetime-local') && !el.matches(':focus');
    return {
      element:
        `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className ? `.${String(el.className).split(' ').join('.')}` : ''}` +
        `${el.getAttribute('value') && el.tagName === 'BUTTON' ? `[value=${el.getAttribute('value')}]` : ''}`,
      id: el.id,
      visible: outlined || shadowed || pickerButton,
      outline: pickerButton
        ? "the browser's own ring on the calendar button"
        : `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}`,
      boxShadow: style.boxShadow,
    };
  });
}

/**
 * Presses `key` (Tab, Shift+Tab) until the focused element matches `selector`, at most `max` times, checking
 * at each stop that the focused element shows a focus indicator. Returns every stop (for the report when it fails).
 */
export async function tabUntil(page: Page, selector: string, key = 'Tab', max = 40): Promise<FocusState[]> {
  const stops: FocusState[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(key);
    const state = await focusState(page);
    stops.push(state);
    if (state.element !== 'body' && !state.visible) {
      throw new Error(`no visible focus indicator on ${state.element} (outline ${state.outline}, box-shadow ${state.boxShadow})`);
    }
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return stops;
  }
  throw new Error(`${selector} was not reached after ${max} presses of ${key}: ${stops.map((s) => s.element).join(' → ')}`);
}
