/**
 * Who the service is: the names a request may address it by (Host) and the
 * origins a page that may change things is served from (Origin). Pure
 * functions, no fastify, so server.ts can use them before listening.
 * See docs/security.md.
 */
import { BlockList, isIPv6 } from 'node:net';

/** A host name with an optional port, as written in Host or an Origin. */
export interface Authority {
  /** lowercase; an IPv6 literal keeps its brackets, compressed: `[::1]` */
  name: string;
  port?: number;
}

/** The names that always mean "this machine". Only these get no config. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

// reg-name or IPv4 (RFC 3986 §3.2.2, minus percent-encoding and sub-delims no
// browser sends in Host), or an IPv6 literal in brackets; then a decimal port.
// Anything else — userinfo, paths, trailing dots, commas from a repeated
// header — fails to parse and is refused, never normalised.
const AUTHORITY = /^(?:([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)|\[([0-9a-f:.]+)\])(?::([0-9]{1,5}))?$/i;

/** Parse `name[:port]`; null when it is not one plain authority. */
export function parseAuthority(text: string): Authority | null {
  const m = AUTHORITY.exec(text);
  if (m === null) return null;
  let name: string;
  if (m[2] !== undefined) {
    if (!isIPv6(m[2])) return null;
    // The URL parser compresses IPv6 the way browsers write it in Host, so
    // `[0:0:0:0:0:0:0:1]` and `[::1]` are the same name. Safe: only hex,
    // colons and dots reach it.
    name = new URL(`http://[${m[2]}]/`).hostname;
  } else {
    name = m[1]!.toLowerCase();
  }
  if (m[3] === undefined) return { name };
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return null;
  return { name, port };
}

/**
 * Parse the configured extra host names (DESK_ALLOWED_HOSTS). An entry is
 * `name` or `name:port`; a bare IPv6 literal gets its brackets. Throws on an
 * entry that is not a plain authority, so a typo stops the start instead of
 * silently allowing nothing.
 */
export function parseAllowedHosts(entries: readonly string[]): Authority[] {
  return entries
    .map((e) => e.trim())
    .filter((e) => e.length > 0)
    .map((e) => {
      const a = parseAuthority(isIPv6(e) ? `[${e}]` : e);
      if (a === null) throw new Error(`allowed host ${JSON.stringify(e)} is not a host name with an optional port`);
      return a;
    });
}

/**
 * Does `a` name this service? `defaultPort` is what an absent port means:
 * 80 for Host (the service speaks plain HTTP), the scheme's port for Origin.
 * Loopback names must carry the service's own port (another local server is
 * another origin). A configured name with a port must match it exactly; one
 * without a port matches the service's port or no port at all (a reverse
 * proxy on 80/443 forwarding its own Host).
 */
export function isOwnAuthority(
  a: Authority,
  defaultPort: number,
  port: number,
  extra: readonly Authority[],
  loopbackOk = true,
): boolean {
  const effective = a.port ?? defaultPort;
  if (loopbackOk && LOOPBACK_NAMES.includes(a.name) && effective === port) return true;
  return extra.some(
    (h) => h.name === a.name && (h.port !== undefined ? effective === h.port : a.port === undefined || effective === port),
  );
}

/** Is the Host header value one of this service's own names? */
export function isOwnHost(host: string | undefined, port: number, extra: readonly Authority[]): boolean {
  if (host === undefined) return false;
  const a = parseAuthority(host);
  return a !== null && isOwnAuthority(a, 80, port, extra);
}

const ORIGIN = /^(https?):\/\/([^/?#@\\]*)$/;

/**
 * Is the Origin header value this service's own origin? `null` (sandboxed
 * frames, file: pages, some redirects) is never ours. Loopback names are
 * ours only over http — the service does not speak TLS; configured names
 * may sit behind a TLS proxy, so https is accepted for them.
 */
export function isOwnOrigin(origin: string, port: number, extra: readonly Authority[]): boolean {
  const m = ORIGIN.exec(origin);
  if (m === null) return false;
  const scheme = m[1]!;
  const a = parseAuthority(m[2]!);
  if (a === null) return false;
  return scheme === 'https' ? isOwnAuthority(a, 443, port, extra, false) : isOwnAuthority(a, 80, port, extra);
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');
loopback.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/**
 * Is `host` (a listen address, HOST) reachable only from this machine?
 * `localhost` counts: it resolves to loopback. Empty, `0.0.0.0` and `::`
 * listen on every interface and do not.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase();
  if (h === 'localhost') return true;
  const bare = h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
  if (isIPv6(bare)) return loopback.check(bare, 'ipv6');
  if (/^\d{1,3}(?:\.\d{1,3}){3}$/.test(bare)) {
    try {
      return loopback.check(bare, 'ipv4');
    } catch {
      return false; // 999.1.1.1 and the like: not an address at all
    }
  }
  return false;
}

/**
 * The refusal server.ts prints before listening, or null. A service
 * reachable from other machines must require a token: without one, anyone
 * on the network could rewrite the operator's templates.
 */
export function checkListenAddress(host: string, token: string | undefined): string | null {
  if (isLoopbackHost(host)) return null;
  if (token !== undefined && token.trim().length > 0) return null;
  return `refusing to listen on ${JSON.stringify(host)} without DESK_TOKEN: a non-loopback address is reachable from other machines. Set DESK_TOKEN, or HOST=127.0.0.1.`;
}
