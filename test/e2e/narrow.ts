/**
 * The page on a phone-sized window (390 px): nothing may be wider than the
 * window. What sticks out is named (tag, id or class, right edge) so a
 * failure says where to look. The checks run in the page as script strings:
 * the test files are compiled without the DOM lib.
 */
import type { Page } from 'playwright-core';

export const NARROW = { width: 390, height: 844 };

/** '' when the document is no wider than the window; else its widths and the outermost elements reaching past the right edge. */
export function tooWide(page: Page): Promise<string> {
  return page.evaluate<string>(`(() => {
    const doc = document.documentElement;
    if (doc.scrollWidth <= doc.clientWidth) return '';
    const out = [];
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= doc.clientWidth + 0.5) continue;
      if (el.parentElement && el.parentElement.getBoundingClientRect().right > doc.clientWidth + 0.5) continue;
      const cls = typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\\s+/).join('.') : '';
      out.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + cls + ' → ' + Math.round(r.right));
      if (out.length >= 6) break;
    }
    return 'scrollWidth ' + doc.scrollWidth + ' > clientWidth ' + doc.clientWidth + ': ' + out.join(', ');
  })()`);
}

/** How many lines the header's items take: the header may wrap to two, no more. */
export function headerLines(page: Page): Promise<number> {
  return page.evaluate<number>(`(() => {
    const header = document.querySelector('header.top');
    const boxes = [...header.children].map((el) => el.getBoundingClientRect()).filter((r) => r.width > 0).sort((a, b) => a.top - b.top);
    // a new line starts where a box begins below the bottom of every box on the line before
    let lines = 0;
    let bottom = -Infinity;
    for (const r of boxes) {
      if (r.top >= bottom - 2) {
        lines++;
        bottom = r.bottom;
      } else bottom = Math.max(bottom, r.bottom);
    }
    return lines;
  })()`);
}
