/**
 * Markup written with `html`: every interpolated value was escaped, so it can
 * be interpolated again as is. The library list draws its thousand rows this
 * way, in one parse, instead of tens of thousands of createElement and
 * setAttribute calls (bench/page.ts, first load).
 */
export class Markup {
  constructor(readonly text: string) {}
}

type MarkupValue = Markup | string | number | null | undefined | false | MarkupValue[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function markupOf(v: MarkupValue): string {
  if (v == null || v === false) return '';
  if (v instanceof Markup) return v.text;
  if (Array.isArray(v)) return v.map(markupOf).join('');
  return String(v).replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** A template literal of HTML whose values are escaped (text and quoted attribute values alike); null and false write nothing. */
export function html(strings: TemplateStringsArray, ...values: MarkupValue[]): Markup {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += markupOf(values[i]!) + strings[i + 1]!;
  return new Markup(out);
}
