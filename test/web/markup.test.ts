import { describe, expect, it } from 'vitest';
import { html } from '../../src/web/markup.js';

// The library list draws its rows from this markup: names and purposes are the operator's text.
describe('html markup', () => {
  it('escapes every interpolated string, in text and in quoted attributes', () => {
    const name = `a"b'c<d>&e`;
    expect(html`<a title="${name}">${name}</a>`.text).toBe('<a title="a&quot;b&#39;c&lt;d&gt;&amp;e">a&quot;b&#39;c&lt;d&gt;&amp;e</a>');
  });

  it('writes nested markup as is, once escaped, and nothing for null, undefined or false', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p>${inner}${null}${undefined}${false}${[inner, 'x&y']}${0}</p>`.text).toBe('<p><b>&lt;i&gt;</b><b>&lt;i&gt;</b>x&amp;y0</p>');
  });

  it('cannot be fooled by a string that looks like markup', () => {
    const text = '<script>alert(1)</script>';
    expect(html`${text}`.text).not.toContain('<script>');
  });
});
