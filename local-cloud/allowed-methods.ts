// Which methods a path has routes for, so a known path asked with another method answers 405
// with `Allow` instead of 404. Fastify's router keeps this to itself; every route is recorded here
// as it is added (the `onRoute` hook) and its pattern compiled to a regular expression.

interface RouteEntry {
  pattern: RegExp;
  methods: Set<string>;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `/a/:id/b` → /^\/a\/[^/]+\/b$/ (the only parameter syntax the local cloud's routes use). */
function compile(url: string): RegExp {
  const segments = url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : escapeRegExp(segment)));
  return new RegExp(`^${segments.join('/')}$`);
}

export class AllowedMethods {
  private readonly routes = new Map<string, RouteEntry>();

  add(url: string, method: string | readonly string[]): void {
    let entry = this.routes.get(url);
    if (!entry) {
      entry = { pattern: compile(url), methods: new Set() };
      this.routes.set(url, entry);
    }
    for (const m of typeof method === 'string' ? [method] : method) entry.methods.add(m.toUpperCase());
    // Fastify answers HEAD wherever it answers GET.
    if (entry.methods.has('GET')) entry.methods.add('HEAD');
  }

  /** The methods some route serves at this path (no query string), sorted; empty when none. */
  for(path: string): string[] {
    const methods = new Set<string>();
    for (const entry of this.routes.values()) {
      if (entry.pattern.test(path)) for (const m of entry.methods) methods.add(m);
    }
    return [...methods].sort();
  }
}
