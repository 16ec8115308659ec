// Browser sign-in for the codec server: a Web UI without its own login (docker compose) cannot send
// `Authorization: Bearer`, but with TEMPORAL_CODEC_INCLUDE_CREDENTIALS=true it sends cookies. An
// operator opens `<endpoint>/login` once, pastes the token, and gets an HttpOnly, SameSite=Strict
// cookie scoped to the codec path. The token never travels in a URL.
import type { IncomingMessage } from 'node:http';

export const CODEC_COOKIE = 'tideline_codec_token';
const COOKIE_MAX_AGE_S = 12 * 60 * 60;

/** The token from the codec cookie, if the request carries one. */
export function tokenFromCookie(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === CODEC_COOKIE)
      return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** The token field of a `application/x-www-form-urlencoded` login form. */
export function tokenFromForm(body: string): string | undefined {
  return new URLSearchParams(body).get('token')?.trim() || undefined;
}

export function sessionCookie(token: string, path: string, secure: boolean): string {
  return [
    `${CODEC_COOKIE}=${encodeURIComponent(token)}`,
    `Path=${path}`,
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${COOKIE_MAX_AGE_S}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/** True when the browser reached the server over https (directly or via a TLS-terminating proxy). */
export function isHttps(req: IncomingMessage): boolean {
  return req.headers['x-forwarded-proto'] === 'https' || 'encrypted' in req.socket;
}

export function loginPage(message: string): string {
  const escaped = message.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>tideline codec server</title></head>
<body style="font-family: sans-serif; max-width: 32em; margin: 3em auto">
<h1>tideline codec server</h1>
<p>${escaped}</p>
<form method="post"><label>Token <input type="password" name="token" autocomplete="off" required></label>
<button type="submit">Sign in</button></form>
<p>The Web UI must send credentials to the codec server (TEMPORAL_CODEC_INCLUDE_CREDENTIALS=true, or
"Include cross-origin credentials" in its codec settings), and use the same host name as this page.</p>
</body></html>
`;
}
