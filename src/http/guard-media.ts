/**
 * The media type of a request body, read the way browsers read it: the
 * WHATWG MIME Sniffing standard, "parse a MIME type" (§4.4), up to the
 * essence. Parameters never change the answer, so they are not parsed.
 */

// HTTP whitespace is exactly these four (Fetch §2.2); `\s` would also strip
// NBSP and friends, which a browser keeps as part of the type.
const HTTP_WS = /^[\t\n\r ]+|[\t\n\r ]+$/g;
const TRAILING_HTTP_WS = /[\t\n\r ]+$/;
// HTTP token code points (RFC 9110 §5.6.2).
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** `type/subtype` in lowercase, or null when the value is not a MIME type. */
export function mimeEssence(value: string): string | null {
  const s = value.replace(HTTP_WS, '');
  const slash = s.indexOf('/');
  if (slash <= 0) return null;
  const type = s.slice(0, slash);
  const semi = s.indexOf(';', slash + 1);
  const subtype = (semi === -1 ? s.slice(slash + 1) : s.slice(slash + 1, semi)).replace(TRAILING_HTTP_WS, '');
  if (!TOKEN.test(type) || !TOKEN.test(subtype)) return null;
  return `${type}/${subtype}`.toLowerCase();
}

/** Is the Content-Type header a JSON body this service parses? */
export function isJsonContentType(value: string | undefined): boolean {
  return value !== undefined && mimeEssence(value) === 'application/json';
}

/**
 * Does the request carry a body? Per RFC 9112 §6.3 a body is framed by
 * Transfer-Encoding or a non-zero Content-Length; a Content-Type on its own
 * counts too, because fastify parses whenever one is present.
 */
export function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  if (headers['content-type'] !== undefined) return true;
  const len = headers['content-length'];
  return len !== undefined && len !== '0';
}
