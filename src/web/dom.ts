import type { Markup } from './markup.js';

/** A small element builder: the page has no framework, and this keeps views declarative enough to read. */
type Child = Node | string | number | null | undefined | false;
type AttrValue = string | number | boolean | null | undefined | ((ev: Event) => void);

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, AttrValue> = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function s(tag: string, attrs: Record<string, AttrValue> = {}, ...children: (Child | Child[])[]): SVGElement {
  const el = document.createElementNS(SVG_NS, tag) as SVGElement;
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el: Element, attrs: Record<string, AttrValue>): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v == null || v === false) continue;
    if (typeof v === 'function') {
      el.addEventListener(k.replace(/^on/, ''), v);
    } else if (v === true) {
      el.setAttribute(k, '');
    } else {
      el.setAttribute(k, String(v));
    }
  }
}

function append(el: Element, children: (Child | Child[])[]): void {
  for (const c of children.flat()) {
    if (c == null || c === false) continue;
    el.append(typeof c === 'number' ? String(c) : c);
  }
}

export function clear(el: Element): void {
  while (el.firstChild) el.firstChild.remove();
}

/** `el.append` that skips null/false children, for conditional parts of a view. */
export function add(el: Element, ...children: (Child | Child[])[]): void {
  append(el, children);
}

/**
 * The top-level elements of some markup (markup.ts), parsed once, not yet in
 * the document. Parsed by an element of the page's own document rather than
 * a <template>: a template's nodes belong to another document and are
 * adopted one by one when inserted, which more than doubled the cost of a
 * thousand list rows (65 → 27 ms in Chromium). Markup made by `html` carries
 * only escaped values, so nothing in it can load or run.
 */
export function fromMarkup(...parts: Markup[]): Element[] {
  const holder = document.createElement('div');
  holder.innerHTML = parts.map((m) => m.text).join('');
  return [...holder.children];
}

/** `f` once the page is idle (between keys while typing), or after `timeoutMs` at the latest. */
export function whenIdle(f: () => void, timeoutMs: number): void {
  if ('requestIdleCallback' in window) requestIdleCallback(f, { timeout: timeoutMs });
  else setTimeout(f, Math.min(timeoutMs, 200));
}
