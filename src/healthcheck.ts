/**
 * The container's HEALTHCHECK (Dockerfile): `node dist/src/healthcheck.js`
 * exits 0 when the service on this machine answers GET /api/desk/health with
 * 200, else 1. The image has node and no curl. It reads the server's own
 * environment: PORT (default 8787) and DESK_TOKEN, sent as the bearer token
 * because /health is under /api like every other route. Without DESK_TOKEN,
 * a desk that knows its users from DESK_USERS_FILE answers 401
 * `unauthorized`, and that answer counts as alive. It connects to
 * 127.0.0.1, a loopback name the Host guard accepts on the service's port.
 */
// Nothing of the service is imported: this runs every 30 s beside it, and
// loading fastify (through config.ts) would cost more than the check.
/** config.ts's DEFAULT_PORT. */
const DEFAULT_PORT = 8787;
/** How long the check waits for an answer. Docker's own --timeout is longer. Default 4 s. */
const TIMEOUT_MS = 4_000;

async function check(env: NodeJS.ProcessEnv): Promise<boolean> {
  const port = env.PORT?.trim() || String(DEFAULT_PORT);
  const token = env.DESK_TOKEN?.trim();
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/desk/health`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (res.status === 200) return ((await res.json()) as { ok?: unknown }).ok === true;
    // Without DESK_TOKEN (a desk whose users come from DESK_USERS_FILE: the file holds only hashes), the
    // desk's own refusal of a request with no credential is the answer of a live service; a request with
    // no credential is never counted as a failed authentication (docs/security.md), so probing locks nobody out.
    return !token && res.status === 401 && ((await res.json()) as { type?: unknown }).type === 'urn:desk-library:error:unauthorized';
  } catch {
    return false;
  }
}

process.exitCode = (await check(process.env)) ? 0 : 1;
